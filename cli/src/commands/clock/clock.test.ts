import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";
import { toOptions as advanceOptions } from "./advance.js";
import { toOptions as setOptions } from "./set.js";

describe("clock: parsing", () => {
  it("takes a whole number and a unit, and an ISO 8601 time", () => {
    expect(advanceOptions({ args: ["5m"], flags: {} }).duration).toBe("5m");
    expect(() => advanceOptions({ args: ["5 minutes"], flags: {} })).toThrow(/not a duration/);
    expect(() => advanceOptions({ args: ["1.5h"], flags: {} })).toThrow(/not a duration/);
    expect(setOptions({ args: ["2026-03-02T09:00:00+01:00"], flags: {} }).to).toBe("2026-03-02T08:00:00.000Z");
    expect(() => setOptions({ args: ["tomorrow"], flags: {} })).toThrow(/not a timestamp/);
    expect(() => setOptions({ args: ["2026-03-02"], flags: {} })).toThrow(/not a timestamp/);
  });
});

describe("clock: commands against the app", () => {
  let h: Harness;
  afterEach(() => h.close());

  it("shows a manual clock, moves it forward, and refuses to move it back", async () => {
    h = await createHarness({ manualClock: true });
    const shown = await h.lp(["clock"]);
    expect(shown).toMatchObject({ code: 0, stdout: "2026-03-01T10:00:00.000Z\n" });
    expect(shown.stderr).toContain("manual clock");
    expect((await h.lp(["clock", "advance", "90m", "--json"])).json()).toEqual({ now: "2026-03-01T11:30:00.000Z", mode: "manual" });
    expect((await h.lp(["clock", "set", "2026-03-03T00:00:00Z"])).stdout).toBe("2026-03-03T00:00:00.000Z\n");
    const back = await h.lp(["clock", "set", "2026-03-01T00:00:00Z"]);
    expect(back.code).toBe(1);
    expect(back.stderr).toContain("only moves forward");
    expect((await h.lp(["products", "create", "--title", "Stamped", "--price", "1", "--type", "service", "--json"])).json().created_at).toBe("2026-03-03T00:00:00.000Z");
  });

  it("says a system clock cannot move (exit 1), and a bad duration is a usage error (exit 2)", async () => {
    h = await createHarness();
    expect((await h.lp(["clock", "--json"])).json().mode).toBe("system");
    const refused = await h.lp(["clock", "advance", "5m"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--clock manual");
    expect((await h.lp(["clock", "advance", "soon"])).code).toBe(2);
  });
});
