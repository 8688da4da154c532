import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createExpiringKeys, type ExpiringKeys } from "./expiring-keys.js";

/** The session cookie: HttpOnly, SameSite=Strict, sent only to the dashboard's own paths. */
export const SESSION_COOKIE = "lp_dashboard";
/** How long a login URL stays usable if nobody opens it. */
const LOGIN_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a session lasts without use. */
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

const hash = (value: string) => createHash("sha256").update(value).digest("hex");
const token = () => randomBytes(32).toString("base64url");
/** The CSRF token of a session, derived from its cookie: any process that knows the session knows it, none stores it. */
const csrfOf = (cookie: string) => createHash("sha256").update(`lp-dashboard-csrf:${cookie}`).digest("base64url");

/** A logged-in browser. */
export interface DashboardSession {
  id: string;
  csrf: string;
}

/**
 * Login tokens and sessions of the dashboard, kept only as hashes with an expiry in `keys` (this process's
 * memory by default: a restart logs everyone out; the database's `dashboard_keys` when processes share
 * PostgreSQL). Login tokens are single-use, even when two requests race, on one process or several.
 */
export function createDashboardAccess(keys: ExpiringKeys = createExpiringKeys()) {
  // Writes of tokens minted synchronously (the URL `lp serve` prints), awaited before a redeem here.
  const pending = new Set<Promise<void>>();

  return {
    /** A fresh single-use login token, stored in the background (see {@link mintLogin} to wait for it). */
    issueLogin(): string {
      const value = token();
      const write = keys.put(`login:${hash(value)}`, "1", LOGIN_TTL_MS).catch(() => {});
      pending.add(write);
      void write.finally(() => pending.delete(write));
      return value;
    },
    /** A fresh single-use login token, stored before it is returned (so it is accepted at once). */
    async mintLogin(): Promise<string> {
      const value = token();
      await keys.put(`login:${hash(value)}`, "1", LOGIN_TTL_MS);
      return value;
    },
    /** Consumes a login token; returns the new session's cookie value and CSRF token, or null if unknown or used. */
    async redeem(login: string): Promise<{ cookie: string; session: DashboardSession } | null> {
      await Promise.all(pending);
      if ((await keys.take(`login:${hash(login)}`)) === null) return null;
      const cookie = token();
      const id = hash(cookie).slice(0, 16);
      await keys.put(`session:${hash(cookie)}`, id, SESSION_IDLE_MS);
      return { cookie, session: { id, csrf: csrfOf(cookie) } };
    },
    /** The session of a request's cookie header, or null; each use extends it. */
    async sessionOf(cookieHeader: string | null): Promise<DashboardSession | null> {
      const value = readCookie(cookieHeader, SESSION_COOKIE);
      if (!value || value.length > 200) return null;
      const key = `session:${hash(value)}`;
      const id = await keys.get(key);
      if (id === null) return null;
      await keys.touch(key, SESSION_IDLE_MS);
      return { id, csrf: csrfOf(value) };
    },
    /** Ends the session of a cookie header. */
    async logout(cookieHeader: string | null): Promise<void> {
      const value = readCookie(cookieHeader, SESSION_COOKIE);
      if (value) await keys.remove(`session:${hash(value)}`);
    },
    close: () => keys.close(),
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
