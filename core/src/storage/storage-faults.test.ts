import { describe, expect, it } from "vitest";
import { StorageUnavailableError } from "../errors.js";
import { recordProblem } from "./record-check.js";
import { toStorageFault } from "./storage-faults.js";

const errno = (code: string) => Object.assign(new Error(`${code}: refused`), { code });
const reply = (message: string) => Object.assign(new Error(message), { name: "ReplyError" });

describe("toStorageFault", () => {
  it.each([
    ["ENOSPC", "disk_full", "insufficient_storage"],
    ["EDQUOT", "disk_full", "insufficient_storage"],
    ["EROFS", "read_only", "storage_unavailable"],
    ["EACCES", "permission_denied", "storage_unavailable"],
    ["EPERM", "permission_denied", "storage_unavailable"],
  ])("%s is %s (%s)", (code, reason, lpCode) => {
    expect(toStorageFault(errno(code))).toMatchObject({ reason, code: lpCode, sysCode: code });
  });

  it("reads Redis OOM replies, also inside an aborted transaction and as the cause of an outage error", () => {
    expect(toStorageFault(reply("OOM command not allowed when used memory > 'maxmemory'."))).toMatchObject({ reason: "redis_maxmemory" });
    const aborted = Object.assign(new Error("EXECABORT Transaction discarded"), { previousErrors: [reply("OOM command not allowed")] });
    expect(toStorageFault(aborted)).toMatchObject({ reason: "redis_maxmemory" });
    expect(toStorageFault(new StorageUnavailableError(undefined, { cause: reply("OOM command not allowed") }))).toMatchObject({ reason: "redis_maxmemory" });
  });

  it("leaves everything else alone: bugs stay bugs, outages stay outages", () => {
    expect(toStorageFault(errno("ENOENT"))).toBeNull();
    expect(toStorageFault(reply("ERR wrong number of arguments"))).toBeNull();
    expect(toStorageFault(new StorageUnavailableError())).toBeNull();
    expect(toStorageFault("ENOSPC")).toBeNull();
  });
});

describe("recordProblem", () => {
  const product = { id: "p1", account_id: "a", title: "T", product_type: "physical", images: [], created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z", deleted_at: null };

  it("passes a sound record, extra fields included, and missing ones (null)", () => {
    expect(recordProblem("acct:a:products:p1", { ...product, newer_field: 1 })).toBeNull();
    expect(recordProblem("acct:a:products:p1", null)).toBeNull();
    expect(recordProblem("meta:anything", { value: 1 })).toBeNull();
  });

  it("names what is wrong with a torn, empty, foreign or mistyped record", () => {
    expect(recordProblem("acct:a:products:p1", '{"id":"p1","ti')).toBe("not valid JSON (cut short or edited)");
    expect(recordProblem("acct:a:products:p1", "")).toBe("empty");
    expect(recordProblem("meta:anything", [1])).toBe("a list, not a record");
    expect(recordProblem("acct:a:products:p1", { ...product, title: 3 })).toMatch(/^not a valid product: title /);
    expect(recordProblem("acct:a:pages:p1", { hello: "world" })).toMatch(/^not a valid page: id /);
  });
});
