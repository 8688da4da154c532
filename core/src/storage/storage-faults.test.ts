import { describe, expect, it } from "vitest";
import { StorageUnavailableError } from "../errors.js";
import { toStorageFault } from "./storage-faults.js";

const errno = (code: string) => Object.assign(new Error(`${code}: refused`), { code });

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

  it("reads the cause of an error that wraps a file system's refusal", () => {
    expect(toStorageFault(new Error("write failed", { cause: errno("ENOSPC") }))).toMatchObject({ reason: "disk_full", sysCode: "ENOSPC" });
  });

  it("leaves everything else alone: bugs stay bugs, outages stay outages", () => {
    expect(toStorageFault(errno("ENOENT"))).toBeNull();
    expect(toStorageFault(new Error("ERR wrong number of arguments"))).toBeNull();
    expect(toStorageFault(new StorageUnavailableError())).toBeNull();
    expect(toStorageFault("ENOSPC")).toBeNull();
  });
});
