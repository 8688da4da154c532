import { describe, expect, it } from "vitest";
import { createTextMemo } from "./text-memo.js";

describe("createTextMemo", () => {
  it("derives once per text of a key, and again when the text changes", () => {
    const calls: string[] = [];
    const memo = createTextMemo((text: string) => {
      calls.push(text);
      return text.length;
    });
    expect(memo.get("a", '{"x":1}')).toBe(7);
    expect(memo.get("a", '{"x":1}')).toBe(7);
    // An equal text read again as another string (a driver that parses nothing keeps no reference) still hits.
    expect(memo.get("a", ['{"x":', "1}"].join(""))).toBe(7);
    expect(memo.get("a", '{"x":10}')).toBe(8);
    expect(memo.get("b", '{"x":1}')).toBe(7);
    expect(calls).toEqual(['{"x":1}', '{"x":10}', '{"x":1}']);
  });

  it("keeps at most `max` keys, forgetting the oldest, and forgets everything on clear", () => {
    let derived = 0;
    const memo = createTextMemo(() => ++derived, 2);
    memo.get("a", "1");
    memo.get("b", "1");
    memo.get("c", "1");
    expect(memo.size).toBe(2);
    expect(memo.get("b", "1")).toBe(2);
    expect(memo.get("a", "1")).toBe(4);
    memo.clear();
    expect(memo.size).toBe(0);
    expect(memo.get("c", "1")).toBe(5);
  });
});
