import type { EventCodec, EventEnvelope } from '@runledger/event-log';
import { CachedDataKeys, DataKeyState, DataOwner, dataKeyName } from './data-keys';
import { ERASED_TEXT, isSealed, openWithKey, ownerErased, SealedValue, sealJsonWithKey } from './sealed-values';

/** At most how many values this process sealed it remembers the plain JSON of (see SealingCodec). */
const SEALED_HERE_KEPT = 2_000;

/**
 * Issue 9 erasure — the one table of personal and case data in events: per event type, the data fields (dotted
 * paths) sealed with the owner's data key. The owner is the event's case when it has one (case key), else its user
 * (user key): see `dataOwnerOf`. Ids, types, hashes, artifact references, statuses and error codes stay readable,
 * so routing, folds, isolation checks and the audit chain work on sealed events. README "Erasure" lists the same.
 */
export const SEALED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // The task-assistant request as queued (the message, the history and confirmation a caller may send).
  AgentRequested: ['request.message', 'request.message_history', 'request.pending_confirmation'],
  // A governed run request: the caller's free-form parameters.
  AgentRunRequested: ['spec.parameters'],
  // Run records: the user's message; step checkpoints (context, classification, case facts, notes);
  // tool calls, their results (task titles, transcripts) and failure texts (a session's tool or sub-agent error
  // can quote its input; issue 21 moved session tool calls here from SessionToolCompleted, which sealed it);
  // the run's result.
  RunCreated: ['parameters.message', 'parameters.prompt'],
  StepCompleted: ['output', 'context', 'memory_snapshot'],
  ToolCallRequested: ['parameters'],
  ToolCallRecorded: ['result', 'error.message'],
  RunCompleted: ['result'],
  // A failed run's error text (issue 23): a failed sub-agent's or model's error can quote the user's input.
  RunFailed: ['error.message'],
  // The decision and its audit record's free text (ids and codes stay: the audit ledger indexes them).
  DecisionRecorded: ['decision', 'intent', 'audit_record.input_message', 'audit_record.tool_calls', 'audit_record.response_preview'],
  // The conversation history.
  MessageExchanged: ['user_message', 'assistant_message', 'pending_confirmation'],
  // Agent sessions (README "Agent sessions"): the prompt as queued; the journal's model answers, tool arguments
  // and results, notes and error texts; the final report and conversation. Kinds, seqs, call ids, tool names,
  // token counts and `ok` flags stay: accounting, resumption and the reply fold read them.
  SessionRequested: ['spec.prompt'],
  SessionLlmCompleted: ['result.response', 'result.error.message'],
  SessionToolRequested: ['args'],
  SessionToolCompleted: ['execution.output', 'execution.error'],
  SessionAccounted: ['entry.error'],
  SessionNoted: ['entry.message', 'entry.data'],
  SessionFinished: ['finalReport', 'conversation', 'error.message'],
};

/**
 * Events that must be stored even once their owner is erased: a run's end (a run cut short by the erasure, or resolved
 * later, still gets its terminal event). Their sealed fields are stored as the erased marker, what they would read as.
 */
const STORED_ERASED: ReadonlySet<string> = new Set(['RunFailed']);

/** Whose key seals an event: its case (metadata.case_id), else its user (metadata.user_id, or the user the event names). */
export function dataOwnerOf(event: EventEnvelope): DataOwner | null {
  const m = event.metadata;
  if (m.case_id) return { kind: 'case', id: m.case_id };
  const data = event.data as { user_id?: unknown; request?: { user_id?: unknown } } | null;
  const user = m.user_id ?? data?.user_id ?? data?.request?.user_id;
  return typeof user === 'string' && user !== '' ? { kind: 'user', id: user } : null;
}

type Json = Record<string, unknown>;

/**
 * Replaces the value at `path` (dotted) with `map(value)` in a copy of `data`, copying only the objects on the path.
 * A copy is made with Object.assign and one assignment, as `{ ...data, [key]: value }` makes it (same keys, same order:
 * the key is already `data`'s own): Node 20's V8 defines a key after a spread through its slow path (issue 22, see
 * event-log's envelope.ts), and every seal and erased marker goes through here.
 */
function mapAt(data: Json, path: readonly string[], map: (value: unknown) => unknown, at = 0): Json {
  const head = path[at];
  if (!(head in data) || data[head] === undefined || data[head] === null) return data;
  if (at === path.length - 1) return copyWith(data, head, map(data[head]));
  const inner = data[head];
  if (typeof inner !== 'object' || Array.isArray(inner)) return data;
  const next = mapAt(inner as Json, path, map, at + 1);
  return next === inner ? data : copyWith(data, head, next);
}

/** `{ ...data, [key]: value }` without the spread; a `__proto__` key JSON.parse made an own key is kept one (the spread's way). */
function copyWith(data: Json, key: string, value: unknown): Json {
  const out = Object.hasOwn(data, '__proto__') ? { ...data } : Object.assign({}, data);
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
  return out;
}

/** The sealed value at `path` (dotted, split) in `data`, if there is one: read where mapAt would map, nothing copied. */
function sealedValueAt(data: Json, path: readonly string[]): SealedValue | undefined {
  let at: Json = data;
  for (let i = 0; i < path.length - 1; i++) {
    const inner = at[path[i]];
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner) || !(path[i] in at)) return undefined;
    at = inner as Json;
  }
  const last = path[path.length - 1];
  const value = last in at ? at[last] : undefined;
  return isSealed(value) ? value : undefined;
}

const PATHS = new Map(Object.entries(SEALED_FIELDS).map(([type, fields]) => [type, fields.map((f) => f.split('.'))]));

/**
 * The EventLog codec of every service: seals the table's fields at append with the owner's key and opens them at
 * read. Keys are cached in process (the watch drops a destroyed one), so a seal costs one AES-GCM pass over the
 * field. An event of an erased owner is refused (DATA.ERASED): nothing new is stored for them. A destroyed key
 * opens as the erased marker, the same on every read and every replay (folds stay pure: they see the marker).
 */
export class SealingCodec implements EventCodec {
  /**
   * The plain JSON of values this process sealed lately, so a value read back here (a queued request its worker takes,
   * a commit heard on the live feed) is opened without decrypting it again. Found by owner, nonce and tag (a short key:
   * a Map hashes its whole key, and the ciphertext can be kilobytes), then taken only when every other byte is the
   * same too (ciphertext, text flag). The owner's key is still looked up first: an erased owner's value reads as the
   * erased marker, as ever; a value that differs in any byte is decrypted (and refused if it does not verify).
   */
  private readonly sealedHere = new RecentMap<string, { sealed: SealedValue; json: string }>(SEALED_HERE_KEPT);

  constructor(private readonly keys: CachedDataKeys) {}

  /** The event with its table fields sealed: at once when the owner's key is at hand (no promise), else once it is read. */
  seal(event: EventEnvelope): EventEnvelope | Promise<EventEnvelope> {
    const paths = PATHS.get(event.type);
    if (!paths || typeof event.data !== 'object' || event.data === null) return event;
    const owner = dataOwnerOf(event);
    if (!owner) return event; // system data (campaigns, profiles): no owner to erase
    const name = dataKeyName(owner);
    const key = this.keys.cached(name);
    if (!Buffer.isBuffer(key)) return this.sealOnceRead(event, paths, owner, name);
    try {
      return this.sealWith(event, paths, key, name);
    } catch (err) {
      return Promise.reject(err as Error); // as the async seal did: never a throw at the caller
    }
  }

  /** seal for an owner whose key is not cached (or is erased): read it first. */
  private async sealOnceRead(event: EventEnvelope, paths: readonly string[][], owner: DataOwner, name: string): Promise<EventEnvelope> {
    const key = await this.keys.keyFor(owner);
    if (!key) {
      if (!paths.some((p) => mapAt(event.data as Json, p, () => undefined) !== event.data)) return event;
      if (!STORED_ERASED.has(event.type)) throw ownerErased(owner);
      let erased = event.data as Json;
      for (const path of paths) erased = mapAt(erased, path, () => ERASED_TEXT);
      return { ...event, data: erased };
    }
    return this.sealWith(event, paths, key, name);
  }

  private sealWith(event: EventEnvelope, paths: readonly string[][], key: Buffer, name: string): EventEnvelope {
    let data = event.data as Json;
    for (const path of paths) data = mapAt(data, path, (v) => (isSealed(v) ? v : this.sealHere(key, name, v)));
    return data === event.data ? event : { ...event, data };
  }

  private sealHere(key: Buffer, name: string, value: unknown): SealedValue {
    const json = JSON.stringify(value);
    const sealed = sealJsonWithKey(key, name, json, typeof value === 'string');
    this.sealedHere.set(sealedId(sealed), { sealed, json });
    return sealed;
  }

  /**
   * The event with its sealed fields opened; one with none is handed back at once (no promise: replays read millions),
   * and so is one whose owners' keys are all at hand. A value that does not open is a rejection, never a throw here.
   */
  open<E extends EventEnvelope>(event: E): E | Promise<E> {
    const paths = PATHS.get(event.type);
    if (!paths || typeof event.data !== 'object' || event.data === null) return event;
    const sealedAt = paths.map((path) => [path, sealedValueAt(event.data as Json, path)] as const).filter((p): p is readonly [string[], SealedValue] => p[1] !== undefined);
    if (!sealedAt.length) return event;
    const states = sealedAt.map(([, sealed]) => this.keys.cached(sealed.owner));
    if (!states.every((s): s is Buffer | 'erased' => s !== undefined)) return this.openFields(event, sealedAt);
    try {
      return this.openWith(event, sealedAt, states);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private async openFields<E extends EventEnvelope>(event: E, sealedAt: ReadonlyArray<readonly [string[], SealedValue]>): Promise<E> {
    const states: DataKeyState[] = [];
    for (const [, sealed] of sealedAt) states.push(await this.keys.stateOf(sealed.owner));
    return this.openWith(event, sealedAt, states);
  }

  private openWith<E extends EventEnvelope>(event: E, sealedAt: ReadonlyArray<readonly [string[], SealedValue]>, states: readonly DataKeyState[]): E {
    let data = event.data as Json;
    sealedAt.forEach(([path, sealed], i) => {
      const key = states[i];
      const here = Buffer.isBuffer(key) ? this.sealedHereJson(sealed) : undefined;
      const value = here !== undefined ? (JSON.parse(here) as unknown) : openWithKey(key, sealed);
      data = mapAt(data, path, () => value);
    });
    return { ...event, data };
  }

  /** The JSON this process sealed `sealed` from, if it is that very value (every byte of it). */
  private sealedHereJson(sealed: SealedValue): string | undefined {
    const here = this.sealedHere.get(sealedId(sealed));
    if (!here || here.sealed.ciphertext !== sealed.ciphertext || !here.sealed.text !== !sealed.text) return undefined;
    return here.json;
  }
}

/** Opens every sealed value anywhere inside `value` (read models that copied sealed fields, such as the audit ledger's). */
export async function openDeep(keys: CachedDataKeys, value: unknown): Promise<unknown> {
  if (isSealed(value)) return openWithKey(await keys.stateOf(value.owner), value);
  if (Array.isArray(value)) return Promise.all(value.map((v) => openDeep(keys, v)));
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = await openDeep(keys, v);
  return out;
}

/**
 * The values set lately, between limit/2 and limit of them: two generations, the older dropped whole when the newer
 * fills (issue 22). Every seal sets one, so an LRU's per-set eviction (a delete and a new key iterator) and per-get
 * reordering cost more than the look-ups they serve (0.65 against 0.08 µs a set, measured); what is read here is
 * read once, soon after it was set (a queued request its worker takes, a commit heard on the live feed).
 */
class RecentMap<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.current.get(key) ?? this.previous.get(key);
  }

  set(key: K, value: V): void {
    this.current.set(key, value);
    if (this.current.size >= this.limit / 2) {
      this.previous = this.current;
      this.current = new Map();
    }
  }
}

/** A sealed value's look-up key: owner, nonce and tag (a nonce is drawn once per seal, so no two seals share one). */
function sealedId(v: SealedValue): string {
  return `${v.owner}\n${v.iv}\n${v.tag}`;
}
