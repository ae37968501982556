/** Runs `runledger <command> …` as an operator does: a child process, its stdout, stderr and exit code. */
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';

export const CLI = path.join(__dirname, '..', '..', 'scripts', 'runledger.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(natsUrl: string, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NATS_URL: natsUrl, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`runledger ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running command (runs tail): read its output while it runs, stop it when done. */
export class CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';

  constructor(natsUrl: string, args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NATS_URL: natsUrl, ...env } });
    this.child.stdout.on('data', (c: Buffer) => (this.stdout += c.toString()));
    this.child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
  }

  async until(pred: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const start = Date.now();
    while (!pred()) {
      if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => {
      this.child.once('exit', (code) => resolve(code));
      this.child.kill('SIGINT');
    });
  }
}
