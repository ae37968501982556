import { startNatsServer, tempDir } from '../index';
it('leaks a server on purpose', async () => {
  const s = await startNatsServer();
  await tempDir();
  expect(s.port).toBeGreaterThan(0);
});
