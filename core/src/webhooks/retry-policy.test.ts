import { describe, expect, it } from "vitest";
import { circuitAfterFailure, circuitAfterSuccess, closedCircuit, cooldownMs, DEFAULT_RETRY_SCHEDULE, nextRetryDelay, parseRetrySchedule, withJitter } from "./retry-policy.js";

describe("retry policy", () => {
  it("follows 0, 5s, 5m, 30m, 2h, 5h, 10h, 10h with ±20% jitter, then stops", () => {
    expect(DEFAULT_RETRY_SCHEDULE).toEqual([0, 5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(withJitter(5000, 0)).toBe(4000);
    expect(withJitter(5000, 0.5)).toBe(5000);
    expect(withJitter(5000, 0.999999)).toBe(6000);
    expect(withJitter(0, 0.9)).toBe(0);
    const low = () => 0;
    expect(DEFAULT_RETRY_SCHEDULE.map((_, made) => nextRetryDelay(DEFAULT_RETRY_SCHEDULE, made, low))).toEqual([0, 4e3, 24e4, 144e4, 576e4, 144e5, 288e5, 288e5]);
    expect(nextRetryDelay(DEFAULT_RETRY_SCHEDULE, 8, low)).toBeNull();
  });

  it("parses --retry-schedule values", () => {
    expect(parseRetrySchedule("0,1s,2s")).toEqual([0, 1000, 2000]);
    expect(parseRetrySchedule("250ms, 1.5s,5m,2h,10")).toEqual([250, 1500, 300000, 7200000, 10]);
    expect(() => parseRetrySchedule("0,soon")).toThrow(/'soon'/);
    expect(() => parseRetrySchedule("")).toThrow(RangeError);
  });

  it("opens the circuit on the fifth consecutive failure, for 30 s", () => {
    let circuit = closedCircuit();
    for (let i = 1; i <= 4; i++) {
      circuit = circuitAfterFailure(circuit, 0, false).circuit;
      expect(circuit).toMatchObject({ state: "closed", consecutive_failures: i });
    }
    const opened = circuitAfterFailure(circuit, 1_000, false);
    expect(opened).toEqual({ circuit: { state: "open", consecutive_failures: 5, reopen_count: 0, opens_until: "1970-01-01T00:00:31.000Z" }, disable: false });
    // An attempt already in flight that fails later does not move the window.
    expect(circuitAfterFailure(opened.circuit, 2_000, false).circuit).toMatchObject({ state: "open", consecutive_failures: 6, opens_until: "1970-01-01T00:00:31.000Z" });
    expect(circuitAfterSuccess()).toEqual(closedCircuit());
  });

  it("doubles the wait on each failed probe up to 10 minutes, and asks to disable at the tenth re-open", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(cooldownMs)).toEqual([30e3, 60e3, 120e3, 240e3, 480e3, 600e3, 600e3]);
    let circuit = { ...closedCircuit(), state: "half_open" as const, consecutive_failures: 5 };
    for (let n = 1; n <= 10; n++) {
      const next = circuitAfterFailure(circuit, 0, true);
      expect(next.circuit.reopen_count).toBe(n);
      expect(next.disable).toBe(n === 10);
      expect(Date.parse(next.circuit.opens_until!)).toBe(cooldownMs(n));
      circuit = { ...next.circuit, state: "half_open" };
    }
  });
});
