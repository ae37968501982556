/**
 * Who may use the console: whoever holds this launch's secret. `runledger console` prints one URL with a random
 * token; opening it exchanges the token for a session cookie (HttpOnly, SameSite=Strict, never readable by a page)
 * and every later request must carry that cookie. A request without it gets 401 and no data. Every form that
 * changes something carries the session's CSRF token, and a POST is refused without it (SameSite=Strict already
 * keeps other sites' requests from carrying the cookie; the token also covers browsers that ignore SameSite).
 *
 * Why a launch token and not an identity of its own: the console acts as the NATS identity its process connected
 * with (the operator's), so it can do nothing that operator could not do with the CLI; the token only proves that
 * the person at the browser is the one who started it (or was handed the URL by them).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const COOKIE = 'rl_console';
/** Sessions kept at once: each login makes one; the oldest is forgotten past this. */
const MAX_SESSIONS = 64;

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Equal secrets, compared in constant time (hashing first makes the lengths equal). */
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export interface Session {
  id: string;
  csrf: string;
}

export class ConsoleAuth {
  /** The launch secret: in the printed URL only. */
  readonly token = randomBytes(32).toString('base64url');
  private readonly sessions = new Map<string, Session>();

  /** A new session when `token` is this launch's secret, else null. */
  login(token: string | null): Session | null {
    if (!token || !same(token, this.token)) return null;
    const session = { id: randomBytes(32).toString('base64url'), csrf: randomBytes(24).toString('base64url') };
    this.sessions.set(session.id, session);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    return session;
  }

  /** The session the request's cookie names, or null. */
  session(req: IncomingMessage): Session | null {
    const id = cookieValue(req.headers.cookie, COOKIE);
    if (!id) return null;
    for (const [key, s] of this.sessions) if (same(key, id)) return s;
    return null;
  }

  /** A POST's form token matches its session's. */
  csrfOk(session: Session, token: string | null): boolean {
    return !!token && same(token, session.csrf);
  }
}

export function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=') || null;
  }
  return null;
}

export const sessionCookie = (s: Session) => `${COOKIE}=${s.id}; HttpOnly; SameSite=Strict; Path=/`;
