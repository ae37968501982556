/**
 * Live updates (server-sent events): a page's `#live` block names its feed (`data-src`, /live?…); the one script the
 * console serves — inline, allowed by the CSP by its hash and nothing else — opens an EventSource there (same
 * origin, the session cookie authenticates it like any page) and puts each `update` it receives into the block.
 * The server renders the block again when the log's live feed (rl.live.run.*.*) says a run changed — a moment later
 * too, as the runs index folds an event shortly after it is stored — and sends it only when it differs. The feed
 * carries decision's runs (LIVE_RUNS_REPUBLISHED): a choke point's child run shows with its parent's next commit, or
 * at the IDLE_MS look at the latest.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { LIVE_RUN_PREFIX } from '@runledger/event-log';

export const LIVE_SCRIPT = "(()=>{const b=document.getElementById('live');if(!b||!window.EventSource)return;"
  + "const s=new EventSource(b.dataset.src);s.addEventListener('update',(e)=>{b.innerHTML=e.data;b.dataset.updates=String(Number(b.dataset.updates||0)+1);});})();";

/** The CSP source that allows exactly LIVE_SCRIPT. */
export const LIVE_SCRIPT_HASH = `'sha256-${createHash('sha256').update(LIVE_SCRIPT).digest('base64')}'`;

/** A block that follows its feed; `html` is its first rendering. */
export const liveBlock = (src: string, html: string) => `<div id="live" data-src="${src.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">${html}</div><script>${LIVE_SCRIPT}</script>`;

/**
 * One server-sent event: each line of `data` its own `data:` field. An event stream ends a line at CR LF, LF or a
 * bare CR alike, so all three split `data` here: a CR inside a run's text can never start a field of its own
 * (`event:`, `id:`, a second event) in what the browser reads.
 */
export function sseEvent(event: string, data: string): string {
  return `event: ${event}\n${data.split(/\r\n|\r|\n/).map((l) => `data: ${l}`).join('\n')}\n\n`;
}

/** Re-renders after a change is seen: at once, then again as the index catches up. */
const FOLLOW_UPS_MS = [150, 1_000, 3_000];
/** Without any run event, still re-render this often (a feed cut short, an index that lagged). */
const IDLE_MS = 10_000;

/** One live-feed subscription per console, shared by its open pages. */
export class LiveRuns {
  private sub?: Subscription;
  private readonly listeners = new Set<(runId: string) => void>();

  constructor(private readonly nc: NatsConnection) {}

  on(listener: (runId: string) => void): () => void {
    if (!this.sub) {
      this.sub = this.nc.subscribe(`${LIVE_RUN_PREFIX}.*.*`);
      void (async () => {
        for await (const m of this.sub!) {
          const runId = m.subject.split('.').pop() ?? '';
          for (const l of this.listeners) l(runId);
        }
      })();
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Serves one page's feed until the browser goes: `render` gives the block's HTML now; `concerns` says whether a
 * run's change may change it (all of them for the runs list; the tree's runs for a run page).
 */
export function serveFeed(res: ServerResponse, live: LiveRuns, headers: Record<string, string>, render: () => Promise<string>, concerns: (runId: string) => boolean = () => true): void {
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
  res.write(': live\n\n');
  let last: string | null = null;
  let busy = false;
  let again = false;
  const push = async () => {
    if (busy) return void (again = true);
    busy = true;
    try {
      const html = await render();
      if (last !== null && html !== last && !res.destroyed) res.write(sseEvent('update', html));
      last = html;
    } catch {
      // The next change or tick tries again; the page keeps what it shows.
    } finally {
      busy = false;
      if (again) {
        again = false;
        void push();
      }
    }
  };
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number) => {
    const t = setTimeout(() => (timers.delete(t), void push()), ms);
    timers.add(t);
  };
  const off = live.on((runId) => {
    if (concerns(runId) && timers.size < 6) for (const ms of FOLLOW_UPS_MS) later(ms);
  });
  const idle = setInterval(() => void push(), IDLE_MS);
  void push();
  res.on('close', () => {
    off();
    clearInterval(idle);
    for (const t of timers) clearTimeout(t);
  });
}
