import { describe, expect, it } from "vitest";
import { createInternalErrorLog } from "./internal-error-log.js";

/** One place that throws, so every error from it has the same first stack frame: one cause. */
function nameTooLong(path: string): Error {
  return Object.assign(new Error(`ENAMETOOLONG: name too long, open '${path}'`), { code: "ENAMETOOLONG" });
}

describe("internal errors are logged once per cause a minute", () => {
  it("logs the first stack, counts the rest of the minute, then logs the stack again", () => {
    const written: unknown[][] = [];
    let clock = 0;
    const log = createInternalErrorLog((...parts) => written.push(parts), () => clock);
    for (let i = 0; i < 50; i++) log.report(`[lp] req_${i.toString(16).padStart(4, "0")} internal error:`, nameTooLong(`/data/${"a/".repeat(i)}`));
    expect(written).toHaveLength(1);
    expect(written[0]![0]).toBe("[lp] req_0000 internal error:");
    expect((written[0]![1] as Error).stack).toContain("nameTooLong");
    clock = 60_000;
    log.report("[lp] req_ffff internal error:", nameTooLong("/data/x"));
    expect(written.slice(1).map((parts) => parts[0])).toEqual([
      "[lp] 49 more internal error(s) like req_0000 (Error ENAMETOOLONG) since; stack not repeated",
      "[lp] req_ffff internal error:",
    ]);
  });

  it("keeps distinct causes apart, and the minute's flush writes only counts", () => {
    const written: unknown[][] = [];
    const log = createInternalErrorLog((...parts) => written.push(parts), () => 0);
    log.report("[lp] req_01 internal error:", nameTooLong("/a"));
    log.report("[lp] req_02 internal error:", new TypeError("x is undefined"));
    log.report("[lp] req_03 internal error:", nameTooLong("/b"));
    log.report("[lp] req_04 internal error:", "a thrown string");
    expect(written.map((parts) => parts[0])).toEqual(["[lp] req_01 internal error:", "[lp] req_02 internal error:", "[lp] req_04 internal error:"]);
    log.flush();
    expect(written.slice(3).map((parts) => parts[0])).toEqual(["[lp] 1 more internal error(s) like req_01 (Error ENAMETOOLONG) since; stack not repeated"]);
    log.flush();
    expect(written).toHaveLength(4);
  });
});
