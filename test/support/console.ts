/**
 * `runledger console` as an operator starts it (a CLI process connected as the operator identity), signed in as the
 * README says: open the printed URL, keep the session cookie. `get` reads a page as that signed-in browser would.
 */
import { CliProcess } from './cli';
import type { TestStack } from './stack';

export class ConsoleUnderTest {
  private constructor(private readonly proc: CliProcess, readonly signIn: string, readonly base: string, readonly cookie: string) {}

  static async start(stack: TestStack, args: string[] = [], env: Record<string, string> = {}): Promise<ConsoleUnderTest> {
    const proc = new CliProcess(stack.url, ['console', '--port', '0', ...args], { ...stack.cliEnv('operator'), ...env });
    try {
      await proc.until(() => /open (http:\/\/127\.0\.0\.1:\d+\/login\?token=\S+)/.test(proc.stdout), 'the console\'s sign-in URL');
      const signIn = /open (\S+)/.exec(proc.stdout)![1];
      const login = await fetch(signIn, { redirect: 'manual' });
      const cookie = login.headers.getSetCookie()[0]?.split(';')[0];
      if (login.status !== 303 || !cookie) throw new Error(`signing in answered ${login.status}`);
      return new ConsoleUnderTest(proc, signIn, new URL(signIn).origin, cookie);
    } catch (err) {
      await proc.stop();
      throw err;
    }
  }

  /** A page of the signed-in console: its status and HTML. */
  async get(path: string): Promise<{ status: number; body: string }> {
    const res = await fetch(`${this.base}${path}`, { headers: { cookie: this.cookie }, redirect: 'manual' });
    return { status: res.status, body: await res.text() };
  }

  stop(): Promise<number | null> {
    return this.proc.stop();
  }
}
