import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The session cookie: HttpOnly, SameSite=Strict, sent only to the dashboard's own paths. */
export const SESSION_COOKIE = "lp_dashboard";
/** How long a login URL stays usable if nobody opens it. */
const LOGIN_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a session lasts without use. */
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** Bounds, so a loop minting login URLs cannot grow memory without end. */
const MAX_LOGINS = 64;
const MAX_SESSIONS = 64;

const hash = (value: string) => createHash("sha256").update(value).digest("hex");
const token = () => randomBytes(32).toString("base64url");

/** A logged-in browser. */
export interface DashboardSession {
  id: string;
  csrf: string;
  lastUsed: number;
}

/**
 * Login tokens and sessions of the dashboard, in memory only: a restart logs everyone out. Login tokens
 * are single-use; both are kept hashed, so a heap dump does not hand out a session.
 */
export function createDashboardAccess(now: () => number = Date.now) {
  const logins = new Map<string, number>(); // hash -> expiry
  const sessions = new Map<string, DashboardSession>(); // hash of the cookie value -> session

  function prune(): void {
    const t = now();
    for (const [key, expires] of logins) if (expires <= t) logins.delete(key);
    for (const [key, s] of sessions) if (s.lastUsed + SESSION_IDLE_MS <= t) sessions.delete(key);
  }

  return {
    /** A fresh single-use login token; the oldest is dropped past {@link MAX_LOGINS}. */
    issueLogin(): string {
      prune();
      const value = token();
      logins.set(hash(value), now() + LOGIN_TTL_MS);
      while (logins.size > MAX_LOGINS) logins.delete(logins.keys().next().value!);
      return value;
    },
    /** Consumes a login token; returns the new session's cookie value and CSRF token, or null if unknown or used. */
    redeem(login: string): { cookie: string; session: DashboardSession } | null {
      prune();
      const key = hash(login);
      if (!logins.has(key)) return null;
      logins.delete(key);
      const cookie = token();
      const session = { id: hash(cookie).slice(0, 16), csrf: token(), lastUsed: now() };
      sessions.set(hash(cookie), session);
      while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      return { cookie, session };
    },
    /** The session of a request's cookie header, or null. */
    sessionOf(cookieHeader: string | null): DashboardSession | null {
      const value = readCookie(cookieHeader, SESSION_COOKIE);
      if (!value) return null;
      const session = sessions.get(hash(value));
      if (!session || session.lastUsed + SESSION_IDLE_MS <= now()) return null;
      session.lastUsed = now();
      return session;
    },
    /** Ends the session of a cookie header. */
    logout(cookieHeader: string | null): void {
      const value = readCookie(cookieHeader, SESSION_COOKIE);
      if (value) sessions.delete(hash(value));
    },
  };
}

/** Compares a request's CSRF header with the session's, in constant time. */
export function csrfMatches(session: DashboardSession, given: string | null): boolean {
  if (!given) return false;
  const a = Buffer.from(hash(given), "hex");
  const b = Buffer.from(hash(session.csrf), "hex");
  return timingSafeEqual(a, b);
}

/** The `Set-Cookie` value that starts a session. */
export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/_dashboard`;
}

function readCookie(header: string | null, name: string): string | null {
  if (!header || header.length > 8192) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The dashboard's login tokens and sessions. */
export type DashboardAccess = ReturnType<typeof createDashboardAccess>;
