import { describe, expect, it } from "vitest";
import { createLocalExpiringKeys } from "./expiring-keys.js";

/** The in-process expiring keys (the Redis ones are exercised by the dashboard's shared-session suite). */
describe("local expiring keys", () => {
  it("forgets a value when its time is up, and a touch gives it more", async () => {
    let now = 1_000;
    const keys = createLocalExpiringKeys(() => now);
    await keys.put("a", "1", 100);
    await keys.put("b", "2", 100);
    now += 60;
    await keys.touch("a", 100);
    now += 60;
    expect(await keys.get("a")).toBe("1");
    expect(await keys.get("b")).toBeNull();
    await keys.touch("b", 100);
    expect(await keys.get("b")).toBeNull();
  });

  it("hands a value to one taker only", async () => {
    const keys = createLocalExpiringKeys();
    await keys.put("once", "x", 10_000);
    const taken = await Promise.all([keys.take("once"), keys.take("once")]);
    expect(taken.sort()).toEqual(["x", null].sort());
  });

  it("keeps at most `max` keys, dropping the oldest", async () => {
    const keys = createLocalExpiringKeys(Date.now, 3);
    for (const k of ["a", "b", "c", "d"]) await keys.put(k, k, 10_000);
    expect(await Promise.all(["a", "b", "c", "d"].map((k) => keys.get(k)))).toEqual([null, "b", "c", "d"]);
    await keys.remove("c");
    expect(await keys.get("c")).toBeNull();
  });
});
