/**
 * The terminal chat (`node scripts/runledger.js chat --user <id>`) against a running stack: the same
 * process, stdin and stdout a person uses.
 */
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { TestStack } from './support/stack';

jest.setTimeout(120_000);

const CLI = path.join(__dirname, '..', 'scripts', 'runledger.js');
const PREFIX = 'assistant> ';

/** One `runledger chat` process; `say` writes a line and resolves with the assistant's (dedented) answer. */
class ChatProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [CLI, 'chat', ...args], { env: { ...process.env, ...env } });
    this.child.stdout.on('data', (c: Buffer) => (this.stdout += c.toString()));
    this.child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Every answer printed so far, continuation lines joined back with their indent removed. */
  replies(): string[] {
    const out: string[] = [];
    for (const line of this.stdout.split('\n')) {
      if (line.startsWith(PREFIX)) out.push(line.slice(PREFIX.length));
      else if (out.length && line.startsWith(' '.repeat(PREFIX.length))) out[out.length - 1] += `\n${line.slice(PREFIX.length)}`;
    }
    return out;
  }

  async until(pred: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const start = Date.now();
    while (!pred()) {
      if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async say(line: string): Promise<string> {
    const before = this.replies().length;
    this.child.stdin.write(`${line}\n`);
    await this.until(() => this.replies().length > before && this.stdout.endsWith('\n'), `the answer to ${JSON.stringify(line)}`);
    return this.replies()[before];
  }

  /** Writes a line that prints no assistant answer (a /command) and waits for `expected` on stdout. */
  async command(line: string, expected: RegExp): Promise<string> {
    const from = this.stdout.length;
    this.child.stdin.write(`${line}\n`);
    await this.until(() => expected.test(this.stdout.slice(from)), `output of ${line}`);
    return this.stdout.slice(from);
  }

  conversationId(): string {
    return /conversation ([0-9a-f-]{36})/.exec(this.stdout)?.[1] ?? '';
  }
}

describe('Terminal chat: runledger chat against the running stack', () => {
  let stack: TestStack;
  const running: ChatProcess[] = [];
  const chat = (...args: string[]) => {
    const c = new ChatProcess(args, stack.cliEnv('caller'));
    running.push(c);
    return c;
  };
  beforeAll(async () => {
    stack = await TestStack.start();
  });
  afterAll(async () => {
    for (const c of running) if (c.child.exitCode === null) c.child.kill();
    await stack?.stop();
  });

  it('Chat: a person adds, lists, completes, renames and deletes (with confirmation) tasks, then /quit exits 0', async () => {
    const c = chat('--user', 'carol');
    await c.until(() => c.conversationId() !== '', 'the banner');
    expect(await c.say('add task buy milk')).toBe("I've added 'buy milk' to your tasks.");
    expect(await c.say('remind me to call mom')).toBe("I've added 'call mom' to your tasks.");
    expect(await c.say('show my tasks')).toBe('Here are your tasks:\n1. buy milk\n2. call mom');
    expect(await c.say('mark buy milk as done')).toBe("Done! 'buy milk' has been marked as completed.");
    expect(await c.say('rename call mom to call mom tonight')).toBe("Updated 'call mom' to 'call mom tonight'.");
    expect(await c.say('delete call mom tonight')).toBe(
      "Are you sure you want to delete 'call mom tonight'? This cannot be undone. Reply 'yes' to confirm or 'no' to cancel.",
    );
    expect(await c.say('yes')).toBe("'call mom tonight' has been deleted.");
    expect(await c.say('show my tasks')).toBe("You don't have any tasks yet.");
    // A clarification question is printed the same way as an answer.
    expect(await c.say('add task')).toBe('What would you like the task to say?');
    c.child.stdin.write('/quit\n');
    expect(await c.exited).toBe(0);
    expect(c.stderr).toBe('');
  });

  it('Chat: /help explains, /new starts a conversation without the pending delete, --conversation resumes one', async () => {
    const first = chat('--user', 'dave');
    expect(await first.command('/help', /\/quit/)).toMatch(/\/new/);
    await first.say('add task buy bread');
    await first.say('delete buy bread');
    const pendingIn = first.conversationId();
    const started = await first.command('/new', /Started a new conversation \(([0-9a-f-]{36})\)/);
    expect(started).not.toContain(pendingIn);
    // The new conversation has no pending confirmation: "yes" deletes nothing.
    expect(await first.say('yes')).not.toContain('deleted');
    expect(await first.say('show my tasks')).toBe('Here are your tasks:\n1. buy bread');
    first.child.stdin.end(); // end of input leaves like /quit
    expect(await first.exited).toBe(0);

    const resumed = chat('--user', 'dave', '--conversation', pendingIn);
    expect(await resumed.say('yes')).toBe("'buy bread' has been deleted.");
    resumed.child.stdin.end();
    expect(await resumed.exited).toBe(0);
  });

  it('Chat: invalid arguments are usage errors: exit 2 with the usage (issue 25)', async () => {
    for (const args of [[], ['--user'], ['--user', 'erin', '--conversation', 'not-a-uuid'], ['--bogus']]) {
      const c = chat(...args);
      expect(await c.exited).toBe(2);
      expect(c.stderr).toContain('usage: runledger chat --user <id>');
    }
  });

  it('Chat: no NATS at NATS_URL → "Runledger is not running: start it with npm start", exit 3', async () => {
    const c = new ChatProcess(['--user', 'erin'], { NATS_URL: 'nats://127.0.0.1:1' });
    running.push(c);
    expect(await c.exited).toBe(3);
    expect(c.stderr).toBe('Runledger is not running: start it with npm start\n');
  });

  // Last: it stops the decision service.
  it('Chat: no responders for the task assistant → "Runledger is not running: start it with npm start", exit 3', async () => {
    await stack.kill('decision');
    // The server drops the killed process's subscription on disconnect: wait until that is visible.
    await stack.waitFor(() =>
      stack.nc.request('agents.task-assistant.process', '{}', { timeout: 2_000 }).then(() => false, (err: { isNoResponders?: () => boolean }) => err.isNoResponders?.() === true),
    );
    const c = chat('--user', 'erin');
    await c.until(() => c.conversationId() !== '', 'the banner');
    c.child.stdin.write('show my tasks\n');
    expect(await c.exited).toBe(3);
    expect(c.stderr).toBe('Runledger is not running: start it with npm start\n');
  });
});
