import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration, parseDurationList } from "./durations.js";
import { toAmount, toChoice, toInt, toList, toLooseValue, toPairs } from "./parse.js";
import { toWaitOptions } from "./wait.js";

describe("option parsing", () => {
  it("parses durations and lists of them", () => {
    expect(parseDuration("250ms", "--x")).toBe(250);
    expect(parseDuration("2s", "--x")).toBe(2000);
    expect(parseDuration("1.5m", "--x")).toBe(90_000);
    expect(parseDuration("1500", "--x")).toBe(1500);
    expect(parseDurationList("0,1s,2s", "--retry-schedule")).toEqual([0, 1000, 2000]);
    expect(() => parseDuration("soon", "--timeout")).toThrow(/--timeout: 'soon' is not a duration/);
    expect(() => parseDurationList("1s,,2s", "--retry-schedule")).toThrow(/empty entry/);
    expect(formatDuration(90_000)).toBe("1m30s");
  });

  it("names the flag in every usage error", () => {
    expect(toInt("5", "--limit", 1)).toBe(5);
    expect(() => toInt("0", "--limit", 1)).toThrow(/--limit/);
    expect(() => toInt("x", "--port")).toThrow(/--port/);
    expect(toAmount("49.90", "--price")).toBe(49.9);
    expect(() => toAmount("-1", "--price")).toThrow(/--price/);
    expect(() => toChoice("digital", "--type", ["physical", "service"] as const)).toThrow(/--type: 'digital' must be one of physical, service/);
  });

  it("splits lists and pairs", () => {
    expect(toList(["a,b", " c "])).toEqual(["a", "b", "c"]);
    expect(toPairs(["primaryColor=#fff", "title=a=b"], "--theme")).toEqual({ primaryColor: "#fff", title: "a=b" });
    expect(() => toPairs(["nokey"], "--seo")).toThrow(/--seo: 'nokey' must look like key=value/);
    expect([toLooseValue("null"), toLooseValue("true"), toLooseValue("text")]).toEqual([null, true, "text"]);
  });

  it("bounds --interval to 2s..5s unless LP_POLL_INTERVAL_MS overrides it", () => {
    expect(toWaitOptions({ wait: true }, {})).toEqual({ wait: true, firstPollMs: 250, intervalMs: 2000, timeoutMs: 300_000 });
    expect(toWaitOptions({ interval: "5s", timeout: "1m" }, {})).toMatchObject({ wait: false, intervalMs: 5000, timeoutMs: 60_000 });
    expect(() => toWaitOptions({ interval: "1s" }, {})).toThrow(/--interval/);
    expect(toWaitOptions({}, { LP_POLL_INTERVAL_MS: "10" }).intervalMs).toBe(10);
  });
});
