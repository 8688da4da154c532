import { createLocalRateWindows, createRedisRateWindows, LpError, StorageUnavailableError, type RateWindows } from "@lp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../../core/src/testing/redis-server.js";
import { createRateLimiter } from "./rate-limit.js";

if (!redisAvailable) console.warn(redisSkipReason("the shared rate limit"));

async function refusal(work: Promise<void>): Promise<LpError> {
  const error = await work.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(LpError);
  return error as LpError;
}

describe("createRateLimiter in one process", () => {
  it("lets `count` requests per window through per address, then refuses with the seconds to wait", async () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ count: 3, windowMs: 60_000 }, createLocalRateWindows(() => now));
    for (let i = 0; i < 3; i++) await limiter.hit("10.0.0.1");
    await limiter.hit("10.0.0.2"); // another address has its own window
    now += 15_000;
    const refused = await refusal(limiter.hit("10.0.0.1"));
    expect(refused.code).toBe("rate_limited");
    expect(refused.details).toEqual({ limit: 3, window_seconds: 60, retry_after_seconds: 45 });
    now += 45_000;
    await expect(limiter.hit("10.0.0.1")).resolves.toBeUndefined();
  });

  it("keeps its memory bounded under many addresses", async () => {
    let now = 0;
    const limiter = createRateLimiter({ count: 1, windowMs: 1000 }, createLocalRateWindows(() => now));
    for (let i = 0; i < 30_000; i++) await limiter.hit(`a${i}`);
    // The first addresses were evicted to make room, so they start a fresh window.
    await expect(limiter.hit("a0")).resolves.toBeUndefined();
    await expect(limiter.hit("a29999")).rejects.toThrow(/Too many requests/);
    now += 1000;
    await expect(limiter.hit("a29999")).resolves.toBeUndefined();
  });

  it("keeps two limits on the same windows apart by name", async () => {
    const windows = createLocalRateWindows(() => 0);
    const checkout = createRateLimiter({ count: 1, windowMs: 1000 }, windows, "checkout");
    const other = createRateLimiter({ count: 1, windowMs: 1000 }, windows, "other");
    await checkout.hit("a");
    await expect(other.hit("a")).resolves.toBeUndefined();
    await expect(checkout.hit("a")).rejects.toThrow(/Too many requests/);
  });
});

describe.skipIf(!redisAvailable)("createRateLimiter on Redis (processes sharing one)", () => {
  let server: RedisServer;
  const opened: RateWindows[] = [];
  // Each its own connection, as each process of a cluster would have.
  const windows = (url = server.url) => {
    const w = createRedisRateWindows({ url, prefix: "t:" }, () => {});
    opened.push(w);
    return w;
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(opened.map((w) => w.close?.()));
    await server?.dispose();
  });

  it("counts every process's requests in one window, which ends for all of them", async () => {
    const limit = { count: 4, windowMs: 1500 };
    const a = createRateLimiter(limit, windows());
    const b = createRateLimiter(limit, windows());
    await a.hit("10.0.0.9");
    await b.hit("10.0.0.9");
    await a.hit("10.0.0.9");
    await b.hit("10.0.0.9");
    const refused = await refusal(a.hit("10.0.0.9"));
    expect(refused.details).toMatchObject({ limit: 4, window_seconds: 1.5 });
    expect((refused.details as { retry_after_seconds: number }).retry_after_seconds).toBeGreaterThanOrEqual(1);
    await expect(b.hit("10.0.0.9")).rejects.toThrow(/Too many requests/);
    await expect(b.hit("10.0.0.10")).resolves.toBeUndefined(); // another address
    await new Promise((resolve) => setTimeout(resolve, 1600));
    await expect(b.hit("10.0.0.9")).resolves.toBeUndefined();
  });

  it("answers 503 while Redis cannot be reached, and counts again once it can", async () => {
    const limiter = createRateLimiter({ count: 10, windowMs: 60_000 }, windows());
    await limiter.hit("10.0.0.20");
    await server.stop();
    try {
      await expect(limiter.hit("10.0.0.20")).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      await server.restart();
    }
    await expect.poll(() => limiter.hit("10.0.0.20").then(() => "ok", (e: unknown) => String(e)), { timeout: 5000 }).toBe("ok");
  });
});
