import type { Redis } from "ioredis";
import { toStorageFault } from "../storage/storage-faults.js";
import { cryptoIds } from "../deps.js";
import { LpError, StorageUnavailableError } from "../errors.js";
import { createRedisClient } from "../storage/redis-client.js";
import type { Lock, LockLease } from "./lock.js";

/** Options of {@link createRedisLock}. */
export interface RedisLockOptions {
  /** `redis://host:port/db`. Two connections are opened: commands, and a subscriber for release notices. */
  url: string;
  /** Prepended to every key and channel, so several services can share one Redis. */
  prefix?: string;
  /** Lease of a grant, renewed every third of it while `fn` runs. 10 s by default. */
  leaseMs?: number;
  /**
   * Longest a caller waits for a busy key before `service_unavailable`. By default the lease plus 5 s: a key a
   * killed process held frees itself within one lease, so a request or background step behind it waits it out
   * instead of failing (with a wait equal to the lease, a loaded machine's delays could tip it over).
   */
  waitMs?: number;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Where connection trouble is reported (once per outage). */
  log?: (message: string) => void;
}

// Grants a free key to the caller with a fresh fencing token, or answers how long the current lease has left
// (negative), in one round trip. The token doubles as the key's value, so renew and release compare it.
// One counter for every key: tokens still grow per key, and no counter is left behind per key.
const ACQUIRE = `
if redis.call('exists', KEYS[1]) == 1 then
  local left = redis.call('pttl', KEYS[1])
  if left < 1 then left = 1 end
  return -left
end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], token, 'PX', ARGV[1])
return token`;
const RENEW = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  redis.call('publish', ARGV[2], KEYS[1])
  return 1
end
return 0`;

interface LockCommands {
  lpLockAcquire(key: string, fence: string, leaseMs: number): Promise<number>;
  lpLockRenew(key: string, token: string, leaseMs: number): Promise<number>;
  lpLockRelease(key: string, token: string, channel: string): Promise<number>;
}

/** The 503 a caller gets when the lock cannot be had: busy for too long, lost, or Redis unreachable. */
export function lockUnavailable(message: string): LpError {
  return new LpError("service_unavailable", message, { retry_after_seconds: 1 });
}

/**
 * A {@link Lock} shared by every process on one Redis: SET NX PX with a lease, renewed while `fn` runs and
 * released by compare-and-delete, with a fencing token per grant. The callers of one process take a key in
 * turn, and only the first of them asks Redis; it sleeps until a release notice (pub/sub) or a jittered
 * back-off bounded by the holder's remaining lease, whichever comes first. After `waitMs` in all, a caller
 * gets `service_unavailable`. A holder that dies stops renewing, and its key frees itself when
 * the lease ends. Timers here run on the real clock: leases are Redis's real-time expiries.
 */
export function createRedisLock(options: RedisLockOptions): Lock & { close(): Promise<void> } {
  const prefix = options.prefix ?? "";
  const leaseMs = options.leaseMs ?? 10_000;
  const waitMs = options.waitMs ?? leaseMs + 5_000;
  const random = options.random ?? cryptoIds.random;
  const log = options.log ?? ((m: string) => console.error(m));
  const fence = `${prefix}lock-fence`;
  const channel = `${prefix}lock-released`;
  const lockKey = (key: string) => `${prefix}lock:${key}`;

  // The store's client settings: commands fail at once while Redis is down (a 503, not a wait), errors are
  // logged once per outage, and the connection is retried forever.
  const connect = (role: string) => createRedisClient(options.url, { name: role, log });
  const client = connect("lock");
  client.defineCommand("lpLockAcquire", { numberOfKeys: 2, lua: ACQUIRE });
  client.defineCommand("lpLockRenew", { numberOfKeys: 1, lua: RENEW });
  client.defineCommand("lpLockRelease", { numberOfKeys: 1, lua: RELEASE });
  const commands = client as unknown as LockCommands;
  // The leases held now: close() ends them (their holders can no longer be sure of them).
  const leases = new Set<(why: string) => void>();

  // Release notices wake the waiters of that key at once; the back-off is only the fallback.
  const waiters = new Map<string, Set<() => void>>();
  let subscriber: Redis | null = null;
  const subscribe = () => {
    if (subscriber) return;
    subscriber = connect("lock-notices");
    subscriber.on("message", (_channel: string, key: string) => {
      for (const wake of waiters.get(key) ?? []) wake();
    });
    subscriber.subscribe(channel).catch(() => {});
  };

  const pause = (key: string, ms: number) =>
    new Promise<void>((resolve) => {
      const set = waiters.get(key) ?? new Set();
      waiters.set(key, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });

  const busy = () => lockUnavailable(`The resource is busy (lock held for more than ${waitMs} ms); retry shortly.`);
  // The callers of this process queue for a key here first, and only the head of the queue asks Redis: a
  // release then wakes one caller of the process instead of all of them, each asking Redis again.
  const queues = new Map<string, Promise<void>>();
  /** Resolves once the callers ahead in this process are done; throws `service_unavailable` after `ms`. */
  const awaitTurn = (ahead: Promise<void>, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(busy()), ms);
      void ahead.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  /** The token of a grant of `key`, and when the request that got it was sent; waits at most until `started + waitMs`. */
  async function acquire(key: string, started: number): Promise<{ token: number; sentAt: number }> {
    let backoff = 10;
    for (;;) {
      let answer: number;
      const sentAt = Date.now();
      try {
        answer = Number(await commands.lpLockAcquire(key, fence, leaseMs));
      } catch (error) {
        // Redis at maxmemory answers, but refuses the lock's write: say so rather than "unreachable".
        throw toStorageFault(error) ?? new StorageUnavailableError();
      }
      if (answer > 0) return { token: answer, sentAt };
      const left = started + waitMs - Date.now();
      if (left <= 0) throw busy();
      subscribe();
      // Full jitter on an exponential step, never past the holder's lease nor our own deadline.
      const delay = Math.max(1, Math.min(left, -answer, Math.ceil(backoff * (0.5 + random() / 2))));
      await pause(key, delay);
      backoff = Math.min(backoff * 2, 250);
    }
  }

  /** Keeps the lease alive while `fn` runs; aborts the signal once it cannot be sure it still holds it. */
  function keepAlive(key: string, token: number, grantedAt: number) {
    const controller = new AbortController();
    const lost = (why: string) => {
      if (controller.signal.aborted) return;
      stop();
      controller.abort(lockUnavailable(`The lock on this resource was lost (${why}); retry the request.`));
    };
    // Local deadline counted from when the grant, then each successful renewal, was *sent*: never later
    // than Redis's own expiry of the key.
    let expiry = setTimeout(() => lost("lease not renewed in time"), Math.max(0, grantedAt + leaseMs - Date.now()));
    let renewing = false;
    const tick = setInterval(async () => {
      if (renewing) return;
      renewing = true;
      const sentAt = Date.now();
      try {
        const ok = Number(await commands.lpLockRenew(key, String(token), leaseMs));
        if (ok !== 1) return lost("another holder has it");
        if (controller.signal.aborted) return;
        clearTimeout(expiry);
        expiry = setTimeout(() => lost("lease not renewed in time"), Math.max(0, sentAt + leaseMs - Date.now()));
      } catch {
        // Redis unreachable: the expiry timer decides.
      } finally {
        renewing = false;
      }
    }, Math.max(1, Math.floor(leaseMs / 3)));
    const stop = () => {
      clearInterval(tick);
      clearTimeout(expiry);
      leases.delete(lost);
    };
    leases.add(lost);
    const lease: LockLease = {
      token,
      fence: { key, token: String(token) },
      signal: controller.signal,
      async assertHeld() {
        if (controller.signal.aborted) throw controller.signal.reason;
        let value: string | null;
        try {
          value = await client.get(key);
        } catch {
          throw new StorageUnavailableError();
        }
        if (value !== String(token)) {
          lost("another holder has it");
          throw controller.signal.reason;
        }
      },
    };
    return { lease, stop };
  }

  return {
    async withLock(key, fn) {
      const k = lockKey(key);
      const started = Date.now();
      const ahead = queues.get(k);
      let leave!: () => void;
      const mine = new Promise<void>((resolve) => (leave = resolve));
      // The next caller waits for this one, and for the one ahead of it if this one gave up first.
      const tail = ahead ? ahead.then(() => mine) : mine;
      queues.set(k, tail);
      try {
        if (ahead) await awaitTurn(ahead, waitMs);
        const { token, sentAt } = await acquire(k, started);
        const { lease, stop } = keepAlive(k, token, sentAt);
        try {
          return await fn(lease);
        } finally {
          stop();
          // A failed release only delays the next holder until the lease ends.
          await commands.lpLockRelease(k, String(token), channel).catch(() => {});
        }
      } finally {
        leave();
        if (queues.get(k) === tail) queues.delete(k);
      }
    },
    async close() {
      // Stops renewing without releasing: from Redis's side this is a holder that died.
      for (const lost of [...leases]) lost("the lock was closed");
      for (const c of [client, subscriber]) if (c) c.disconnect();
    },
  };
}
