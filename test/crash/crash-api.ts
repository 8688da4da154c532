/** What one request got back. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // The API's JSON, read loosely: the checks look at a few fields of many shapes.
  json: any;
}

/**
 * Thrown when a request got no answer: the server was killed (connection refused or reset) or the
 * request timed out. The write it carried may or may not have happened.
 */
export class Interrupted extends Error {
  constructor(what: string, cause: unknown) {
    super(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "Interrupted";
  }
}

/** Options of a request. */
export interface CallInit {
  body?: unknown;
  headers?: Record<string, string>;
  /** Basic or Bearer credentials other than the account token. */
  authorization?: string;
}

/** A client of one running server: account paths are relative to `/v1/accounts/{account}`. */
export interface CrashApi {
  readonly base: string;
  call(method: string, path: string, init?: CallInit): Promise<Reply>;
}

/** Bound on any single request, so a stuck server fails the run instead of hanging it. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Creates a client for the server at `base`. Paths starting with `/` are absolute (`/v1/developer/...`,
 * `/sites/...`); others are under the account.
 */
export function createCrashApi(base: string, account: string, token: string): CrashApi {
  return {
    base,
    async call(method, path, init = {}) {
      const url = path.startsWith("/") ? `${base}${path}` : `${base}/v1/accounts/${account}/${path}`;
      const headers: Record<string, string> = { authorization: init.authorization ?? `Bearer ${token}`, ...init.headers };
      if (init.body !== undefined) headers["content-type"] = "application/json";
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, {
          method,
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          redirect: "manual",
        });
        text = await res.text();
      } catch (error) {
        throw new Interrupted(`${method} ${path}`, error);
      }
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = null;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
}

/**
 * Runs `fn` over `items` with at most `limit` in flight; resolves once all are done. The checks use it
 * to read hundreds of records without opening hundreds of sockets at once.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Polls `probe` until it returns a value other than undefined, or throws `what` at the deadline. */
export async function pollUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
