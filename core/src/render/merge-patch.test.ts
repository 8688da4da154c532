import { describe, expect, it } from "vitest";
import { applyMergePatch } from "./merge-patch.js";

describe("applyMergePatch (RFC 7396)", () => {
  // The examples of RFC 7396, appendix A.
  it.each([
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])("%j + %j = %j", (target, patch, expected) => {
    expect(applyMergePatch(target as Record<string, unknown>, patch as Record<string, unknown>)).toEqual(expected);
  });

  it("merges a flat theme: set, remove and keep", () => {
    const theme = { primaryColor: "#000", accentColor: "#111", fontFamily: "serif" };
    expect(applyMergePatch(theme, { primaryColor: "#fff", accentColor: null })).toEqual({ primaryColor: "#fff", fontFamily: "serif" });
  });

  it("changes neither argument", () => {
    const target = { a: { b: 1 }, c: 2 };
    const patch = { a: { b: null }, c: 3 };
    applyMergePatch(target, patch as never);
    expect(target).toEqual({ a: { b: 1 }, c: 2 });
    expect(patch).toEqual({ a: { b: null }, c: 3 });
  });

  it("treats __proto__ in parsed JSON as a plain key", () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}');
    const result = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(result.x).toBe(1);
  });
});
