import type { Redis } from "ioredis";

/**
 * Takes a slot when fewer than `limit` unexpired leases are held. KEYS[1] is a sorted set of holders scored
 * by lease expiry (ms, Redis time): expired holders are pruned first, so a holder that died frees its slot
 * when its lease ends. The key itself expires with its newest lease.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
`;

/** Moves a holder's lease end to now + ARGV[2], if it still holds a slot (a pruned holder is not put back). */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local renewed = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return renewed
`;

/** Options of {@link createRedisSemaphore}. */
export interface RedisSemaphoreOptions {
  /** Prefix of the semaphores' keys. */
  prefix: string;
  /**
   * How long a slot is held without renewal: a holder renews it every third of this while its work runs,
   * and one that dies (or stalls that long) frees it when it ends.
   */
  leaseMs: number;
  /** Random tokens that name holders. */
  token: () => string;
  /** Longest pause between two tries while every slot is taken; default 100 ms. */
  maxPollMs?: number;
}

/** Thrown to a waiter when the semaphore is closed: the caller gives its work back (it is retried elsewhere). */
export class SemaphoreClosedError extends Error {
  /** Marks work handed back on a close: its job runs again, which is not a failure worth reporting. */
  readonly requeued = true;
  constructor() {
    super("the webhook engine is closing: the attempt was given back to the queue");
    this.name = "SemaphoreClosedError";
  }
}

type WithAcquire = Redis & {
  lpSemAcquire(key: string, token: string, limit: number, leaseMs: number): Promise<number>;
  lpSemRenew(key: string, token: string, leaseMs: number): Promise<number>;
};

/**
 * A counting semaphore per name over every process of a cluster: at most `limit` holders at once, each
 * with a lease. Waiters poll with a growing pause (a slot freed in this process wakes its waiters at once);
 * there is no order among waiters of different processes.
 */
export function createRedisSemaphore(redis: Redis, options: RedisSemaphoreOptions) {
  const client = redis as WithAcquire;
  if (typeof client.lpSemAcquire !== "function") client.defineCommand("lpSemAcquire", { numberOfKeys: 1, lua: ACQUIRE });
  if (typeof client.lpSemRenew !== "function") client.defineCommand("lpSemRenew", { numberOfKeys: 1, lua: RENEW });
  const maxPoll = options.maxPollMs ?? 100;
  const wakers = new Map<string, Set<() => void>>();
  let closed = false;
  const keyOf = (name: string) => `${options.prefix}${name}`;

  /** Waits up to `ms`, or less when a slot of `name` is freed in this process (or on close). */
  function pause(name: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = wakers.get(name);
      if (!set) wakers.set(name, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set!.delete(done);
        if (set!.size === 0 && wakers.get(name) === set) wakers.delete(name);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      set.add(done);
    });
  }

  async function acquire(name: string, limit: number): Promise<string> {
    const token = options.token();
    let wait = 5;
    for (;;) {
      if (closed) throw new SemaphoreClosedError();
      if ((await client.lpSemAcquire(keyOf(name), token, limit, options.leaseMs)) === 1) return token;
      await pause(name, wait);
      wait = Math.min(maxPoll, wait * 2);
    }
  }

  async function release(name: string, token: string): Promise<void> {
    await client.zrem(keyOf(name), token);
    const set = wakers.get(name);
    if (set) for (const wake of [...set]) wake();
  }

  return {
    /** Runs `fn` holding one of `limit` slots of `name`; the slot is released when `fn` settles. */
    async run<T>(name: string, limit: number, fn: () => Promise<T>): Promise<T> {
      const token = await acquire(name, limit);
      // Renewed while `fn` runs, so the lease can be short: a holder that dies frees its slot within it.
      const renewal = setInterval(() => void client.lpSemRenew(keyOf(name), token, options.leaseMs).catch(() => {}), Math.max(1, Math.floor(options.leaseMs / 3)));
      renewal.unref?.();
      try {
        return await fn();
      } finally {
        clearInterval(renewal);
        // A failed release (Redis gone) is not fatal: the lease frees the slot.
        await release(name, token).catch(() => {});
      }
    },
    /** Holders of `name` whose lease has not ended. */
    async holders(name: string): Promise<number> {
      const [[, now]] = (await client.multi().time().exec()) as [[null, [string, string]]];
      const ms = Number(now[0]) * 1000 + Math.floor(Number(now[1]) / 1000);
      return client.zcount(keyOf(name), `(${ms}`, "+inf");
    },
    /** Waiters stop waiting (with {@link SemaphoreClosedError}); holders keep their slot until they finish. */
    close(): void {
      closed = true;
      for (const set of wakers.values()) for (const wake of [...set]) wake();
    },
  };
}

export type RedisSemaphore = ReturnType<typeof createRedisSemaphore>;
