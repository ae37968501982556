// The runs library loads decorated DTOs (class-transformer): their metadata API first, whatever a suite imports before.
import 'reflect-metadata';
import { existsSync, openSync, closeSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { connect, NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import type { TestIdentity } from '@runledger/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ChildProcess } from 'node:child_process';
import { EventLog, LOG_STREAM, StoredEvent } from '@runledger/event-log';
import { RunRepository } from '@runledger/runs';
import { NatsKvDocumentStore, type DocumentStore } from '@runledger/document-store';
import { BusLayout, CachedDataKeys, decodeReply, encodeJson, KvDataKeyStore, provisionBus, SealedDocumentStore, SealingCodec } from '@runledger/messaging';
import { attachNatsServer, describeNatsServer, startNatsServer, NatsServerDescriptor, NatsServerHandle, TEST_ADMIN, waitUntil } from '@runledger/testing';
import { logContractProblems, reportLogContractProblems } from './log-contract-check';

// The same launcher `npm start` uses, so tests run the stack users run.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const launcher = require('../../scripts/lib/stack.js') as {
  SERVICES: string[];
  startService(name: string, opts: { natsUrl: string; creds?: Readonly<Record<string, TestIdentity>>; env?: Record<string, string>; onLine?: (svc: string, line: string) => void }): { name: string; child: ChildProcess; ready: Promise<{ http_port: number }> };
  stopProcess(child: ChildProcess, signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const permissions = require('../../scripts/lib/permissions.js') as {
  loadTable(): unknown;
  busLayout(table: unknown): BusLayout;
};

export interface StackOptions {
  /** Environment for every service (on top of the test process's). */
  env?: Record<string, string>;
  /** Per-service environment. */
  serviceEnv?: Record<string, Record<string, string>>;
  services?: string[];
}

/** What test/support/e2e.global-teardown.js needs to stop the shared stack, and a suite to attach to it. */
interface SharedStackDescriptor {
  nats: NatsServerDescriptor;
  services: Record<string, number>;
  httpPorts: Record<string, number>;
}

export interface Reply<T> {
  ok: boolean;
  body: T;
}

/**
 * A real nats-server on a free port with its own store, secured exactly as `npm start` secures it (the
 * permissions table; each service connects as itself), the bootstrap step, and the services as separate
 * processes. The stack's own client (`nc`, `log`) is `test-admin`, an identity only the harness creates.
 */
export class TestStack {
  private readonly procs = new Map<string, ChildProcess>();
  readonly logs: string[] = [];
  nc!: NatsConnection;
  log!: EventLog;
  /** The log as stored, sealed data left sealed: what the audit ledger reads and chains. */
  storedLog!: EventLog;
  httpPorts = new Map<string, number>();
  private codec?: SealingCodec;
  /** Of a shared stack: the first log sequence this suite wrote (its stop checks the log from there, and stops nothing). */
  private sharedFromSeq?: number;

  private constructor(readonly nats: NatsServerHandle, private readonly opts: StackOptions) {}

  static async start(opts: StackOptions = {}): Promise<TestStack> {
    const nats = await startNatsServer();
    const stack = new TestStack(nats, opts);
    try {
      stack.nc = await stack.connectAs(TEST_ADMIN);
      // The bootstrap step npm start runs (scripts/bootstrap.ts), in-process: one node process fewer per suite.
      await provisionBus(stack.nc, permissions.busLayout(permissions.loadTable()));
      await Promise.all((opts.services ?? launcher.SERVICES).map((s) => stack.startService(s)));
      await stack.openClients();
    } catch (err) {
      await stack.stop();
      throw new Error(`${(err as Error).message}\n--- service output ---\n${stack.logs.slice(-40).join('\n')}`);
    }
    return stack;
  }

  /**
   * The e2e run's one stack of every service as `start()` starts them, for the suites that ask nothing of a stack but
   * its services: no environment of their own, no service or server killed, restarted or held, nothing asserted of
   * the whole log or of every run (their ids are their own). The first such suite starts it, the next ones attach to it
   * (a stack start is most of such a suite's time; two suites may use it at once, on two jest workers); each suite's
   * stop checks the log records written since it attached (another suite's among them) and closes its connections,
   * and the e2e run's global teardown stops the stack (test/support/e2e.global-*.js).
   * Outside an e2e run (no RL_SHARED_STACK_DIR) it is a stack of the suite's own.
   */
  static async shared(): Promise<TestStack> {
    const dir = process.env.RL_SHARED_STACK_DIR;
    if (!dir) return TestStack.start();
    const file = join(dir, 'stack.json');
    // One starter, even with jest workers: whoever creates the lock starts it, the others wait for its descriptor.
    const failed = join(dir, 'stack.failed');
    if (!existsSync(file) && tryLock(join(dir, 'stack.lock'))) {
      // A start that fails fails every suite waiting for it at once, with its reason, not at the wait's end.
      const stack = await TestStack.start().catch((err: Error) => {
        writeFileSync(failed, err.message);
        throw err;
      });
      const descriptor: SharedStackDescriptor = {
        nats: describeNatsServer(stack.nats),
        services: Object.fromEntries([...stack.procs].map(([name, child]) => [name, child.pid!])),
        httpPorts: Object.fromEntries(stack.httpPorts),
      };
      writeFileSync(`${file}.tmp`, JSON.stringify(descriptor));
      renameSync(`${file}.tmp`, file);
      stack.sharedFromSeq = 1;
      return stack;
    }
    await waitUntil(async () => existsSync(file) || existsSync(failed), { timeoutMs: 120_000, intervalMs: 100 });
    if (!existsSync(file)) throw new Error(`the shared stack did not start: ${readFileSync(failed, 'utf8')}`);
    const descriptor = JSON.parse(readFileSync(file, 'utf8')) as SharedStackDescriptor;
    const stack = new TestStack(attachNatsServer(descriptor.nats), {});
    stack.httpPorts = new Map(Object.entries(descriptor.httpPorts));
    stack.nc = await stack.connectAs(TEST_ADMIN);
    await stack.openClients();
    stack.sharedFromSeq = (await (await jetstreamManager(stack.nc)).streams.info(LOG_STREAM)).state.last_seq + 1;
    return stack;
  }

  private async openClients(): Promise<void> {
    // Tests read events as services do: sealed personal and case data opened (README "Erasure").
    const codec = new SealingCodec(new CachedDataKeys(new KvDataKeyStore(this.nc)));
    this.codec = codec;
    // Its appends stand in for decision's (issue 23: a run it seeds is decision's, on decision's subject, produced by it).
    this.log = new EventLog(jetstream(this.nc), await jetstreamManager(this.nc), { producer: 'decision', clock: { now: () => new Date() }, codec });
    this.storedLog = new EventLog(jetstream(this.nc), await jetstreamManager(this.nc), { producer: 'test', clock: { now: () => new Date() } });
  }

  /** A shared stack's services and server are every suite's: none may stop, hold or restart them. */
  private assertOwn(what: string): void {
    if (this.sharedFromSeq !== undefined) throw new Error(`a shared stack (TestStack.shared) is not this suite's to ${what}: start a stack of its own`);
  }

  get url(): string {
    return this.nats.url;
  }

  /** A new connection as any identity of the permissions table (or `test-admin`); `null` is anonymous. */
  connectAs(identity: string | null): Promise<NatsConnection> {
    return connect({ ...this.nats.connectOptions(identity), name: `test-${identity ?? 'anonymous'}` });
  }

  /** Environment for a `runledger` CLI process connecting as `identity` (scripts/cli/connection.ts). */
  cliEnv(identity: string): Record<string, string> {
    const id = this.nats.creds[identity];
    if (!id) throw new Error(`no test identity "${identity}"`);
    return { NATS_URL: this.nats.url, NATS_CREDS: id.file, NATS_INBOX_PREFIX: id.inboxPrefix, RL_AUDIT_KEY_FILE: this.auditKeyFile };
  }

  /**
   * The ledger's signing key and anchor of this stack (unless a suite sets RL_AUDIT_KEY_FILE): beside its nats store,
   * never in the shared .data folder, where another stack's anchor of another log would read as a replaced log.
   */
  get auditKeyFile(): string {
    return this.opts.serviceEnv?.['audit-ledger']?.RL_AUDIT_KEY_FILE ?? this.opts.env?.RL_AUDIT_KEY_FILE ?? join(this.nats.storeDir, 'audit', 'signing-key.pem');
  }

  /**
   * policy/callers.yaml plus the harness's own identity as a caller of every case: runs and sessions start only on a
   * caller's own door, for a caller of the grants (README "Calling Runledger"), and suites start runs in any case as
   * `test-admin` on rl.caller.test-admin.… (support/governed-runs.ts START). The shipped callers and roles are unchanged (the `caller` identity's
   * refusals are proven as shipped).
   */
  private harnessCallerGrants(): string {
    const file = join(this.nats.storeDir, 'callers.yaml');
    const shipped = YAML.parse(readFileSync(join(__dirname, '..', '..', 'policy', 'callers.yaml'), 'utf8')) as { roles: Record<string, { agents: unknown }>; callers: Record<string, string> };
    const harness = { description: 'The test harness: every case, every input of intake-desk.', cases: ['*'], agents: shipped.roles['intake-desk'].agents };
    writeFileSync(file, YAML.stringify({ ...shipped, roles: { ...shipped.roles, harness }, callers: { ...shipped.callers, [TEST_ADMIN]: 'harness' } }));
    return file;
  }

  /** `env` goes on top of the stack's environment for this start only (a restart without it returns to the stack's). */
  async startService(name: string, env: Record<string, string> = {}): Promise<void> {
    this.assertOwn(`start ${name} on`);
    const svc = launcher.startService(name, {
      natsUrl: this.nats.url,
      creds: this.nats.creds,
      env: { LOG_LEVEL: 'warn', RL_AUDIT_KEY_FILE: this.auditKeyFile, CALLER_GRANTS_FILE: this.harnessCallerGrants(), ...this.opts.env, ...(this.opts.serviceEnv?.[name] ?? {}), ...env },
      onLine: (s, line) => this.logs.push(`[${s}] ${line}`),
    });
    this.procs.set(name, svc.child);
    const ready = await svc.ready;
    this.httpPorts.set(name, ready.http_port);
  }

  /** Kills one service process (SIGKILL by default: no cleanup, no drain). */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.assertOwn(`kill ${name} of`);
    const child = this.procs.get(name);
    if (child) await launcher.stopProcess(child, signal, 2_000);
    this.procs.delete(name);
  }

  /** Signals one service process at once, without waiting (SIGSTOP holds it where it is, SIGCONT lets it go on). */
  signal(name: string, signal: NodeJS.Signals): void {
    this.assertOwn(`signal ${name} of`);
    const pid = this.procs.get(name)?.pid;
    if (pid === undefined) throw new Error(`no running ${name} process to signal`);
    process.kill(pid, signal);
  }

  async restart(name: string): Promise<void> {
    await this.kill(name, 'SIGTERM');
    await this.startService(name);
  }

  /** Request/reply with the Rl-Status convention decoded. */
  async request<T>(subject: string, payload: unknown, timeoutMs = 20_000, rawBody?: Uint8Array): Promise<Reply<T>> {
    const hdrs = natsHeaders();
    const msg = await this.nc.request(subject, rawBody ?? encodeJson(payload), { timeout: timeoutMs, headers: hdrs });
    const decoded = decodeReply(msg.data, msg.headers);
    return decoded.ok ? { ok: true, body: decoded.body as T } : { ok: false, body: decoded.error as unknown as T };
  }

  async runEvents(runId: string): Promise<StoredEvent[]> {
    // As readers serve it: the events its owner wrote, under its owner's subject (issue 23).
    return new RunRepository(this.log).events(runId);
  }

  /** The document collections as db-write keeps and reads them: personal rows sealed at rest, opened here (README "Erasure"). */
  documents(): DocumentStore {
    return new SealedDocumentStore(new NatsKvDocumentStore(this.nc), new KvDataKeyStore(this.nc));
  }

  /** Waits until the audit ledger has indexed what a test is about to query (it is eventually consistent). */
  waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
    return waitUntil(fn as () => Promise<T>, { timeoutMs, intervalMs: 100 }) as Promise<T>;
  }

  /** Stops the stack, and reports every event in its log that its contract does not admit (the e2e run fails listing them). */
  async stop(opts: { whileStopped?: (storeDir: string) => void | Promise<void> } = {}): Promise<void> {
    if (this.sharedFromSeq !== undefined) {
      if (opts.whileStopped) throw new Error('a shared stack is stopped by the e2e run\'s global teardown: nothing reads its store while it is stopped');
      const problems = this.codec ? await logContractProblems(this.nc, this.storedLog, this.codec, this.sharedFromSeq) : [];
      await this.nc.close().catch(() => undefined);
      reportLogContractProblems(problems);
      return;
    }
    await Promise.all([...this.procs.values()].map((c) => launcher.stopProcess(c, 'SIGTERM', 3_000)));
    this.procs.clear();
    // Issue 26: every record as the contract says (test/support/log-contract-check.ts).
    const problems = this.nc && !this.nc.isClosed() && this.codec ? await logContractProblems(this.nc, this.storedLog, this.codec) : [];
    await this.nc?.close().catch(() => undefined);
    // Whatever reads the stopped stack's store runs before the log's contract problems are reported.
    await this.nats.stop(opts.whileStopped);
    reportLogContractProblems(problems);
  }
}

/** True when this process created `file` (it did not exist). */
function tryLock(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch {
    return false;
  }
}
