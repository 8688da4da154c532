import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { syncfs, syncfsShellPid, SyncfsError } from "./fs-syncfs.js";

const hasSyncf = (() => {
  try {
    execFileSync("sync", ["-f", tmpdir()], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!hasSyncf) console.warn("fs-syncfs tests skipped: coreutils' `sync -f` is missing here (Debian package coreutils)");

describe.skipIf(!hasSyncf)("syncfs through one kept shell", () => {
  const dir = mkdtempSync(join(tmpdir(), "lp-syncfs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("flushes through the same shell every time, answering concurrent requests", async () => {
    await syncfs(dir);
    const pid = syncfsShellPid();
    expect(pid).toBeGreaterThan(0);
    await Promise.all(Array.from({ length: 5 }, () => syncfs(dir)));
    expect(syncfsShellPid()).toBe(pid);
  });

  it("reports a flush that failed, with what sync said, and keeps serving", async () => {
    const error = await syncfs(join(dir, "missing", "folder")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncfsError);
    expect((error as SyncfsError).status).not.toBe(0);
    expect((error as SyncfsError).stderr).toMatch(/missing/);
    await expect(syncfs(dir)).resolves.toBeUndefined();
  });

  it("a shell that died is replaced, and what waited on it still completes", async () => {
    await syncfs(dir);
    const pid = syncfsShellPid()!;
    process.kill(pid, "SIGKILL");
    const waited = syncfs(dir);
    await expect(waited).resolves.toBeUndefined();
    await expect(syncfs(dir)).resolves.toBeUndefined();
    expect(syncfsShellPid()).not.toBe(pid);
  });

  it("keeps a process alive until its flush is answered, then lets it end", () => {
    const module = fileURLToPath(new URL("./fs-syncfs.ts", import.meta.url));
    const script = `const { syncfs } = await import(${JSON.stringify(module)}); await syncfs(${JSON.stringify(dir)}); console.log("flushed");`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 30_000 });
    expect(run.stdout.trim()).toBe("flushed");
    expect(run.status).toBe(0);
  });
});
