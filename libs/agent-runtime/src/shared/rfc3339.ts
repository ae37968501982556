/**
 * RFC 3339 date-times as the snapshot schema's `date-time` format accepts them (ajv-formats, full mode): `T`, `t` or
 * whitespace between date and time, `Z`/`z` or an offset `±HH`, `±HHMM`, `±HH:MM`, any number of fraction digits,
 * and a leap second (`:60`). `Date.parse` refuses some of these and keeps only milliseconds, so instants are
 * compared here at full precision.
 */
export interface Instant {
  /** UTC seconds since the epoch; a leap second counts as the second before it, marked `leap`. */
  readonly seconds: number;
  readonly leap: boolean;
  /** Fraction digits without trailing zeros ("" for none). */
  readonly fraction: string;
}

const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt\s](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:[Zz]|([+-])(\d\d)(?::?(\d\d))?)$/;

export function parseRfc3339(text: unknown): Instant | null {
  if (typeof text !== 'string') return null;
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const sign = m[8] === '-' ? -1 : 1;
  const offsetMinutes = m[8] ? sign * (Number(m[9]) * 60 + Number(m[10] ?? 0)) : 0;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60 || Math.abs(offsetMinutes) > 23 * 60 + 59) return null;
  const leap = second === 60;
  const local = Date.UTC(year, month - 1, day, hour, minute, leap ? 59 : second);
  // Date.UTC rolls 31 February over into March: such a date is not a date.
  if (new Date(local).getUTCDate() !== day) return null;
  const seconds = local / 1000 - offsetMinutes * 60;
  // A leap second exists only at the last second of a UTC day.
  if (leap && (seconds + 1) % 86_400 !== 0) return null;
  return { seconds, leap, fraction: (m[7] ?? '').replace(/0+$/, '') };
}

/** Negative when `a` is earlier than `b`, positive when later, 0 for the same instant. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds - b.seconds;
  if (a.leap !== b.leap) return a.leap ? 1 : -1;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, '0');
  const fb = b.fraction.padEnd(width, '0');
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}
