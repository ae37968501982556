import { writeFileSync } from 'node:fs';
it('registers', () => {
  process.on('exit', () => writeFileSync('/tmp/exit-ran', String(process.pid)));
  writeFileSync('/tmp/exit-pid', `${process.pid} listeners=${process.listenerCount('exit')} same=${process === (globalThis as any).process}`);
});
