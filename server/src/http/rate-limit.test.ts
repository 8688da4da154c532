import { createLocalRateWindows, LpError, StorageUnavailableError, type RateWindows } from "@lp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "./rate-limit.js";


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
