import { LpError } from "@lp/core";
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "./rate-limit.js";

describe("createRateLimiter", () => {
  it("lets `count` requests per window through per address, then refuses with the seconds to wait", () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ count: 3, windowMs: 60_000 }, () => now);
    for (let i = 0; i < 3; i++) limiter.hit("10.0.0.1");
    limiter.hit("10.0.0.2"); // another address has its own window
    now += 15_000;
    let refused: unknown;
    try {
      limiter.hit("10.0.0.1");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LpError);
    expect((refused as LpError).code).toBe("rate_limited");
    expect((refused as LpError).details).toEqual({ limit: 3, window_seconds: 60, retry_after_seconds: 45 });
    now += 45_000;
    expect(() => limiter.hit("10.0.0.1")).not.toThrow();
  });

  it("keeps its memory bounded under many addresses", () => {
    let now = 0;
    const limiter = createRateLimiter({ count: 1, windowMs: 1000 }, () => now);
    for (let i = 0; i < 30_000; i++) limiter.hit(`a${i}`);
    // The first addresses were evicted to make room, so they start a fresh window.
    expect(() => limiter.hit("a0")).not.toThrow();
    expect(() => limiter.hit("a29999")).toThrow(/Too many requests/);
    now += 1000;
    expect(() => limiter.hit("a29999")).not.toThrow();
  });
});
