import { describe, expect, it } from "vitest";
import { createManualClock } from "../deps.js";
import { createManualScheduler } from "./scheduler.js";

describe("manual scheduler", () => {
  it("fires due timers in order at their due time, and never early", () => {
    const clock = createManualClock("2026-01-01T00:00:00.000Z");
    const scheduler = createManualScheduler(clock);
    const fired: string[] = [];
    scheduler.setTimeout(() => fired.push(`b@${clock.now().toISOString()}`), 2000);
    scheduler.setTimeout(() => fired.push(`a@${clock.now().toISOString()}`), 1000);
    scheduler.setTimeout(() => fired.push("cancelled"), 500).cancel();
    scheduler.advance(1999);
    expect(fired).toEqual(["a@2026-01-01T00:00:01.000Z"]);
    scheduler.advance(1);
    expect(fired).toEqual(["a@2026-01-01T00:00:01.000Z", "b@2026-01-01T00:00:02.000Z"]);
    expect(scheduler.pending).toBe(0);
  });

  it("advanceAsync settles after each timer, so timers set by that work fire within the same call", async () => {
    const clock = createManualClock("2026-01-01T00:00:00.000Z");
    const scheduler = createManualScheduler(clock);
    const fired: number[] = [];
    let work = Promise.resolve();
    const tick = () => {
      fired.push(clock.now().getTime() - Date.parse("2026-01-01T00:00:00.000Z"));
      work = Promise.resolve().then(() => void (fired.length < 3 && scheduler.setTimeout(tick, 1000)));
    };
    scheduler.setTimeout(tick, 1000);
    await scheduler.advanceAsync(10_000, () => work);
    expect(fired).toEqual([1000, 2000, 3000]);
    expect(clock.now().toISOString()).toBe("2026-01-01T00:00:10.000Z");
  });
});
