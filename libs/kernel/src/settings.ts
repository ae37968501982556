/**
 * Every environment variable a Runledger process reads, in one typed table: its kind and its default. The README's
 * Configuration table says what each means (a unit test keeps the two naming the same variables, and a source scan
 * keeps every read going through here). A value that does not parse stops the process at start, naming the variable,
 * instead of a NaN that turns a timeout into "wait forever" or a bound into "no bound".
 */
type NumberSetting = { readonly kind: 'number'; readonly default?: number; readonly min?: number };
type TextSetting = { readonly kind: 'text'; readonly default?: string };
type FlagSetting = { readonly kind: 'flag' };

const ms = (value?: number): NumberSetting => ({ kind: 'number', ...(value !== undefined ? { default: value } : {}), min: 0 });
const count = (value: number, min = 0): NumberSetting => ({ kind: 'number', default: value, min });
/** Text without a default (undefined when unset), and text with one (never undefined). */
const text = (): { readonly kind: 'text' } => ({ kind: 'text' });
const textOr = (value: string): { readonly kind: 'text'; readonly default: string } => ({ kind: 'text', default: value });
const flag: FlagSetting = { kind: 'flag' };

export const SETTINGS = {
  // Connection and identity (every process).
  NATS_URL: textOr('nats://127.0.0.1:4222'),
  NATS_CREDS: text(),
  NATS_USER: text(),
  NATS_PASSWORD: text(),
  NATS_TOKEN: text(),
  NATS_INBOX_PREFIX: text(),
  NATS_TLS_CA_FILE: text(),
  NATS_TLS_CERT_FILE: text(),
  NATS_TLS_KEY_FILE: text(),
  // A service's second connection, as the consumer identity of the durable it owns (permissions.yaml log.durables `consumer`).
  NATS_CONSUMER_CREDS: text(),
  NATS_CONSUMER_USER: text(),
  NATS_CONSUMER_PASSWORD: text(),
  NATS_CONSUMER_INBOX_PREFIX: text(),
  MONGO_URL: text(),
  HTTP_HOST: textOr('127.0.0.1'),
  HTTP_PORT: count(0),
  LOG_LEVEL: textOr('log'),
  RL_ASYNC_TRACES: flag,
  RL_DATA_DIR: textOr('.data'),
  RL_LOG_REPLICAS: count(1, 1),
  RL_KV_REPLICAS: count(1, 1),
  POLICY_DIR: text(),
  /** How long a stopping service (SIGTERM) finishes the requests and deliveries it has taken before it closes. */
  RL_SHUTDOWN_DRAIN_MS: ms(25_000),
  // decision
  TOOL_TIMEOUT_MS: ms(5_000),
  REPLY_TIMEOUT_MS: ms(),
  TOOL_RETRY_BUDGET_MS: ms(60_000),
  CLASSIFY_RETRY_BUDGET_MS: ms(8_000),
  RL_INBOX_ACK_WAIT_MS: ms(30_000),
  RL_RESOLVER_IDLE_MS: ms(15 * 60_000),
  RL_RESOLVER_GRACE_MS: ms(60_000),
  RL_RESOLVER_INTERVAL_MS: ms(5 * 60_000),
  /** The least idle/grace time a run owner resolves a run after (rl.runs.control), whatever decision asks; rl.runs.resolve's floor. */
  RL_RESOLVER_MIN_IDLE_MS: ms(60_000),
  RL_REJECTED_BURST: count(20),
  RL_REJECTED_PER_MINUTE: count(30),
  RL_REJECTED_OVERALL_BURST: count(200),
  RL_REJECTED_OVERALL_PER_MINUTE: count(1_200),
  /** Follow requests (rl.caller.<caller>.runs.events with wait_ms) waiting at once: per caller, and in all. */
  RL_CALLER_WAITS: count(64),
  RL_CALLER_WAITS_TOTAL: count(4_096),
  AGENT_RUN_REPLY_TIMEOUT_MS: ms(60_000),
  SESSION_REPLY_TIMEOUT_MS: ms(120_000),
  AGENT_PROFILES_DIR: text(),
  RL_AGENT_CONFIG: text(),
  RL_REASONER_PROFILES: text(),
  CAMPAIGN_TOOL_TIMEOUT_MS: ms(20_000),
  CAMPAIGN_REPLY_TIMEOUT_MS: ms(600_000),
  CAMPAIGN_LLM_TIMEOUT_MS: ms(30_000),
  CAMPAIGN_SESSION_TIMEOUT_MS: ms(150_000),
  OPENAI_BASE_URL: text(),
  OPENAI_API_KEY: text(),
  // intent-classification
  INTENT_CLASSIFIER: textOr('rules'),
  INTENT_MODEL: textOr('gpt-4o-mini'),
  INTENT_TIMEOUT_MS: ms(5_000),
  // tool-gateway
  TOOL_RESPONSE_MAX_BYTES: count(65_536, 1),
  RL_TOOL_FAULTS: text(),
  RL_MCP_SERVERS: text(),
  CHROMIUM_PATH: textOr('/usr/bin/chromium'),
  /** Hosts the browser tools may reach although they are not public (SSRF guard): host or host:port, comma separated. */
  RL_BROWSER_ALLOWED_HOSTS: text(),
  TRANSCRIPTION_BASE_URL: text(),
  TRANSCRIPTION_API_KEY: text(),
  TRANSCRIPTION_MODEL: textOr('whisper-1'),
  // db-write
  CALLER_GRANTS_FILE: text(),
  // decision, audit-ledger: the operators' roles policy (default policy/operators.yaml)
  OPERATOR_ROLES_FILE: text(),
  // promotion (defaults: the screen's own, in services/promotion)
  PROMOTION_MAX_CASE_RECORDS: { kind: 'number', min: 1 } as NumberSetting,
  PROMOTION_MAX_SCREEN_ARTIFACTS: { kind: 'number', min: 1 } as NumberSetting,
  PROMOTION_MAX_SCREEN_TEXT_BYTES: { kind: 'number', min: 1 } as NumberSetting,
  // audit-ledger
  RL_AUDIT_KEY_FILE: text(),
  RL_AUDIT_HEAD_DIR: text(),
  RL_STALE_RUN_MS: ms(15 * 60_000),
  JAEGER_UI_URL: text(),
} as const satisfies Record<string, NumberSetting | TextSetting | FlagSetting>;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
type NamesOf<K> = { [N in SettingName]: Settings[N] extends { kind: K } ? N : never }[SettingName];

export type Env = Readonly<Record<string, string | undefined>>;

/** A setting the process cannot run with: named, with the value it got (never a secret: only numbers fail to parse). */
export class SettingError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.name = 'SettingError';
  }
}

/** Unset and empty are the same: a variable exported empty takes the default. */
const given = (env: Env, name: string): string | undefined => {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
};

/** A number setting: its value, else `fallback` (a default computed from other settings), else the table's default. */
export function settingNumber(name: NamesOf<'number'>, env: Env = process.env, fallback?: number): number {
  const spec: NumberSetting = SETTINGS[name];
  const raw = given(env, name);
  if (raw === undefined) {
    const value = fallback ?? spec.default;
    if (value === undefined) throw new SettingError(name, 'is required and has no default');
    return value;
  }
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value)) throw new SettingError(name, `must be a whole number, got "${raw.slice(0, 40)}"`);
  if (spec.min !== undefined && value < spec.min) throw new SettingError(name, `must be at least ${spec.min}, got ${value}`);
  return value;
}

/** A number setting that has no default of its own: undefined when unset. */
export function optionalSettingNumber(name: NamesOf<'number'>, env: Env = process.env): number | undefined {
  return given(env, name) === undefined && SETTINGS[name].default === undefined ? undefined : settingNumber(name, env);
}

/** A text setting: its value, else the table's default, else undefined. */
export function settingText<N extends NamesOf<'text'>>(name: N, env: Env = process.env): Settings[N] extends { default: string } ? string : string | undefined {
  const spec: TextSetting = SETTINGS[name];
  return (given(env, name) ?? spec.default) as Settings[N] extends { default: string } ? string : string | undefined;
}

/** A flag: on only when set to 1 or true. */
export function settingFlag(name: NamesOf<'flag'>, env: Env = process.env): boolean {
  const raw = given(env, name)?.trim().toLowerCase();
  return raw === '1' || raw === 'true';
}
