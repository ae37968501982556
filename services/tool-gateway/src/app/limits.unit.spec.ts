import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limitsFromEnv, whileHeld } from './limits';

const faultsOf = (RL_TOOL_FAULTS: string) => limitsFromEnv({ RL_TOOL_FAULTS }).faults;

describe('Resilience drills (RL_TOOL_FAULTS): what each tool is told to do', () => {
  it('hold:<path> holds the tool on that file, next to delay:<ms> and fail, which read as before', () => {
    expect(Object.fromEntries(faultsOf('list_tasks=hold:/tmp/rl-hold/tools, interview.prompt.next=delay:1500,complete_task=fail'))).toEqual({
      list_tasks: { holdPath: '/tmp/rl-hold/tools' },
      'interview.prompt.next': { delayMs: 1500 },
      complete_task: { fail: true },
    });
  });

  it('a hold path keeps every character after "hold:" (an "=" in it too); a hold without a path is no drill', () => {
    expect(faultsOf('list_tasks=hold:/tmp/a=b/hold').get('list_tasks')).toEqual({ holdPath: '/tmp/a=b/hold' });
    expect(faultsOf('list_tasks=hold:').size).toBe(0);
    expect(faultsOf('list_tasks=hold').size).toBe(0);
  });
});

describe('Resilience drills: a held tool call waits while its hold file exists, never past its own timeout', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rl-hold-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** whileHeld, with whether it has returned yet. */
  function held(path: string, signal?: AbortSignal) {
    const state = { returned: false };
    const done = whileHeld(path, signal).then(() => void (state.returned = true));
    return { state, done };
  }
  /** A few of the drill's looks at the file (it looks every 50 ms): a call that is held is still waiting after them. */
  const afterSomeLooks = () => new Promise((resolve) => setTimeout(resolve, 200));

  it('a call with no hold file goes on at once', async () => {
    await expect(whileHeld(join(dir, 'hold'))).resolves.toBeUndefined();
  });

  it('a call is held while the file exists and goes on once the test removes it', async () => {
    const file = join(dir, 'hold');
    writeFileSync(file, '');
    const call = held(file);
    await afterSomeLooks();
    expect(call.state.returned).toBe(false);
    rmSync(file);
    await call.done;
    expect(call.state.returned).toBe(true);
  });

  it('a held call the gateway abandons at its timeout stops waiting, though the file is still there', async () => {
    const file = join(dir, 'hold');
    writeFileSync(file, '');
    const abandoned = new AbortController();
    const call = held(file, abandoned.signal);
    await afterSomeLooks();
    expect(call.state.returned).toBe(false);
    abandoned.abort();
    await call.done;
    expect(call.state.returned).toBe(true);
  });
});
