import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir } from "../../core/src/storage/data-dir-lock.js";
import { spawnServe, type ServeProcess } from "../../server/src/testing/spawn-serve.js";

/**
 * Locks, queues and indexes live in one process, so one data dir must serve one `lp serve`. The crash
 * loop relies on the other half: a lock left by a SIGKILLed server is taken over on the next start.
 */
describe("the data dir lock", () => {
  const dirs: string[] = [];
  const servers: ServeProcess[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "crash-lock-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.child.kill("SIGKILL");
      await s.exit;
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a dir held by a live process, naming its pid", () => {
    const dir = tempDir();
    // The test runner's parent is alive for as long as this test runs.
    writeFileSync(join(dir, "lp.lock"), String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(`Another lp server (pid ${process.ppid}) is using ${dir}`);
    expect(readFileSync(join(dir, "lp.lock"), "utf8")).toBe(String(process.ppid));
  });

  it("takes over the lock of a process that died, and releases it", () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    writeFileSync(join(dir, "lp.lock"), String(dead));
    const unlock = lockDataDir(dir);
    expect(readFileSync(join(dir, "lp.lock"), "utf8")).toBe(String(process.pid));
    unlock();
    expect(existsSync(join(dir, "lp.lock"))).toBe(false);
  });

  it("a second server on the same dir exits with the first one's pid; after a SIGKILL the dir starts again", { timeout: 60_000 }, async () => {
    const env = { LP_SERVE_STORAGE: "sqlite", LP_SERVE_DATA_DIR: tempDir(), LP_SERVE_PORT: "0" };
    const first = await spawnServe(env);
    servers.push(first);
    await expect(spawnServe(env)).rejects.toThrow(`Another lp server (pid ${first.child.pid})`);

    first.child.kill("SIGKILL");
    await first.exit;
    const again = await spawnServe(env);
    servers.push(again);
    expect(again.env.LP_TOKEN).toBe(first.env.LP_TOKEN);
  });
});
