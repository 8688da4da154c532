import { describe, expect, it } from "vitest";
import { createExpiringKeys } from "./expiring-keys.js";

/** The dashboard's login tokens and sessions are kept in these: expiry, single use, a bounded count. */
describe("expiring keys", () => {
  it("forgets a value when its time is up, and a touch gives it more", async () => {
    let now = 1_000;
    const keys = createExpiringKeys(() => now);
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
    const keys = createExpiringKeys(() => 0);
    await keys.put("once", "x", 10_000);
    const taken = await Promise.all([keys.take("once"), keys.take("once")]);
    expect(taken).toContain("x");
    expect(taken).toContain(null);
  });

  it("keeps at most `max` keys, dropping the oldest written, and forgets everything when closed", async () => {
    const keys = createExpiringKeys(() => 0, 3);
    for (const k of ["a", "b", "c"]) await keys.put(k, k, 10_000);
    // Written again, `a` is the newest: `b` goes when `d` comes.
    await keys.put("a", "a2", 10_000);
    await keys.put("d", "d", 10_000);
    expect(await Promise.all(["a", "b", "c", "d"].map((k) => keys.get(k)))).toEqual(["a2", null, "c", "d"]);
    await keys.remove("c");
    expect(await keys.get("c")).toBeNull();
    await keys.close();
    expect(await keys.get("d")).toBeNull();
  });
});
