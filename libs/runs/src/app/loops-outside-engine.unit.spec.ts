import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Issue 21 done-when: a source search for attempt counters, backoff, `for (;;)` and `while (true)` finds none outside
 * the run engine and the transport, log and store adapters. Every other hit is listed here with why it is not a step
 * loop, a retry loop or a load→decide→append loop; a new one fails this test until it moves into the engine (a
 * journaled step, a `RETRY` policy through `retrying`) or is justified here.
 */
const ROOT = path.resolve(__dirname, '../../../..');

const PATTERNS: ReadonlyArray<readonly [string, RegExp]> = [
  ['for (;;)', /for\s*\(\s*;\s*;\s*\)/],
  ['while (true)', /while\s*\(\s*true\s*\)/],
  ['a counting loop without a bound', /for\s*\(\s*let\s+\w+\s*=[^;]*;\s*;/],
  ['an attempt counter', /\battempts?\b\s*(<|<=|>|>=|\+\+|\+=|--)/],
  ['a backoff', /\bbackoff\w*\s*\(/i],
];

/** Paths (a folder ending in `/`, or a file) where such a loop belongs, and why. */
const ALLOWED: Readonly<Record<string, string>> = {
  'libs/runs/src/app/': 'the run engine and its one retry module (RETRY, retrying)',
  'libs/runs/src/infra/': 'the run log adapter: an append decided again on what the log holds after a conflict; one child-run opening',
  'libs/event-log/src/': 'the log adapter: the decider appends again on an optimistic-concurrency conflict',
  'libs/messaging/src/': 'the transport: bus requests retried on transient codes, consumers redelivering, the connection kept up',
  'libs/document-store/src/': 'store adapters: conditional writes raced by another writer are tried again',
  'libs/client/src/transport.ts': 'the client package\'s transport (retryable failures under one request id)',
  'services/audit-ledger/src/infra/': 'the ledger\'s store adapter (folded rows written again on a document conflict)',
  'services/audit-ledger/src/app/audit-chain.writer.ts': 'the audit chain\'s append to its own stream: the tail reloaded on a conflict (the chain is no run)',
  'libs/agent-session/src/app/llm-attempts.ts': 'contract 002 §1 maxRetries: a turn\'s model attempts are the contract\'s own semantics (round-robin, each accounted); each attempt is a journaled step of the engine',
  'libs/agent-session/src/domain/retry-policy.ts': 'contract 002 §3: the rate-limit backoff the contract specifies for a turn\'s attempts',
  'services/decision/src/campaigns/app/cycle-runner.ts': 'contract 003\'s invalid-proposal attempts of one cycle (settings.max_attempts, on_invalid): each attempt is recorded on the campaign (RecordProposal) before the next, so a resumed cycle goes on from the recorded one',
  'scripts/cli/console/dashboards.ts': 'counts the model attempts the log recorded, for the token-spend dashboard (a read model): it retries nothing',
  'libs/telemetry/src/sdk.ts': 'walks up directories to the file-system root to find the package file',
  'libs/testing/': 'test harness (waiting for a condition in tests), not a run carrier',
  'scripts/lib/chaos/': 'the chaos test harness, not a run carrier',
  'scripts/lib/deployed/': 'the deployment test sandbox, not a run carrier',
};

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (['node_modules', 'dist', '.data'].includes(e.name)) continue;
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) sources(rel, out);
    else if (/\.(ts|js|mjs)$/.test(e.name) && !/\.spec\.ts$|unit-support\.ts$/.test(e.name)) out.push(rel);
  }
  return out;
}

/** Every line of `text` a pattern matches (comments are not code). */
function hits(text: string): Array<{ line: number; what: string }> {
  return text.split('\n').flatMap((l, i) => {
    const t = l.trim();
    if (t.startsWith('*') || t.startsWith('//') || t.startsWith('/*')) return [];
    return PATTERNS.filter(([, re]) => re.test(l)).map(([what]) => ({ line: i + 1, what }));
  });
}

const allowedBy = (file: string) => Object.keys(ALLOWED).find((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

describe('Issue 21 one engine: no step, retry or load→decide→append loop outside the engine and the transport, log and store adapters', () => {
  const found = ['libs', 'services', 'scripts'].flatMap((d) => sources(d)).flatMap((file) => hits(readFileSync(path.join(ROOT, file), 'utf8')).map((h) => ({ file, ...h })));

  it('the source search finds every loop construct it names (a search that finds nothing proves nothing)', () => {
    const sample = ['for (;;) {', 'while (true) {', 'for (let n = 0; ; n++) {', 'attempt++;', 'await sleep(backoffMs(3));'].join('\n');
    expect(hits(sample).map((h) => h.what)).toEqual(PATTERNS.map(([what]) => what));
    expect(hits('// for (;;) in a comment\n * while (true) in a doc comment')).toEqual([]);
  });

  it('a source search for attempt counters, backoff, for (;;) and while (true) finds none outside the allowed places', () => {
    expect(found.filter((h) => !allowedBy(h.file)).map((h) => `${h.file}:${h.line} ${h.what}`)).toEqual([]);
  });

  it('every allowed place still holds such a loop (a justification outlives no loop)', () => {
    expect(Object.keys(ALLOWED).filter((p) => !found.some((h) => allowedBy(h.file) === p))).toEqual([]);
  });
});
