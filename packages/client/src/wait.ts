import { WaitTimeoutError } from "./errors.js";

/** Options of `waitForJob` and `waitForDeployment`. */
export interface WaitOptions<T> {
  /** Pause between polls. Default 2000 ms (the service asks for 2 to 5 s). */
  intervalMs?: number;
  /** Give up after this long with a {@link WaitTimeoutError}. Default 5 minutes. */
  timeoutMs?: number;
  /** Called with the resource after every poll, terminal or not. */
  onProgress?: (resource: T) => void;
  /** Stops waiting (the pending sleep or request rejects with the signal's reason). */
  signal?: AbortSignal;
  /** The clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Default pause between polls. */
export const DEFAULT_INTERVAL_MS = 2000;
/** Default time before a wait gives up. */
export const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Polls `get` until `isDone` holds, then resolves with that resource, whatever its outcome (a failed
 * job or deployment resolves too: look at `status`). Each poll is one request, never retried.
 */
export async function pollUntil<T>(what: string, get: () => Promise<T>, isDone: (resource: T) => boolean, options: WaitOptions<T> = {}): Promise<T> {
  const now = options.now ?? Date.now;
  const interval = Math.max(0, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = now() + timeout;
  for (;;) {
    options.signal?.throwIfAborted();
    const resource = await get();
    options.onProgress?.(resource);
    if (isDone(resource)) return resource;
    const left = deadline - now();
    if (left <= 0) throw new WaitTimeoutError(what, timeout, resource);
    await sleep(Math.min(interval, left), options.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (ms === 0) return void setImmediate(resolve);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
