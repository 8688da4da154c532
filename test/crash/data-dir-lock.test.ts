import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { dataDirHolder, lockDataDir } from "../../core/src/storage/data-dir-lock.js";
import { spawnServe, type ServeProcess } from "../../server/src/testing/spawn-serve.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * Takes the data dir's lock (its path is the first argument), drops what it answered and collects the garbage (node:sqlite
 * closes a connection it collects), says so on stdout, and holds the lock until killed.
 */
const HOLD_LOCK = `const { lockDataDir } = await import("./core/src/storage/data-dir-lock.ts"); lockDataDir(process.argv[1]); gc(); await new Promise((r) => setTimeout(r, 20)); gc(); process.stdout.write("held\\n"); setInterval(() => {}, 1000);`;

/**
 * Locks, queues and indexes live in one process, so one data dir must serve one `lp serve`. The crash
 * loop relies on the other half: the lock of a SIGKILLed server is free for the next start.
 */
describe("the data dir lock", () => {
  const dirs: string[] = [];
  const servers: ServeProcess[] = [];
  // Killed whatever a test's assertions did: a live holder would keep the run from ending.
  const holders: ChildProcess[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "crash-lock-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const holder of holders.splice(0)) holder.kill("SIGKILL");
    for (const s of servers.splice(0)) {
      s.child.kill("SIGKILL");
      await s.exit;
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a dir this process holds already, naming its pid, and lets it go when released", () => {
    const dir = tempDir();
    const unlock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(`Another lp server (pid ${process.pid}) is using ${dir}; stop it or pass another --data-dir.`);
    expect(dataDirHolder(dir)).toEqual({ pid: process.pid });
    unlock();
    expect(dataDirHolder(dir)).toBeNull();
    // The lock file stays (removing it could let two servers hold two files); who held it does not.
    expect(readdirSync(dir).sort()).toEqual(["lp.lock"]);
    expect(statSync(join(dir, "lp.lock")).mode & 0o777).toBe(0o600);
    lockDataDir(dir)();
  });

  it("is free the moment its holder is killed, whatever pid the holder wrote", async () => {
    const dir = tempDir();
    // A process holding the lock the way lp serve does, SQLite's own exclusive lock, then SIGKILLed.
    const holder = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "--input-type=module", "-e", HOLD_LOCK, dir], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    holders.push(holder);
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    const held = new Promise<void>((resolve) => holder.stdout!.once("data", () => resolve()));
    await Promise.race([held, exited.then((code) => Promise.reject(new Error(`the holder exited (${String(code)}) before it held the lock`)))]);
    expect(() => lockDataDir(dir)).toThrow(`Another lp server (pid ${holder.pid}) is using ${dir}`);
    holder.kill("SIGKILL");
    await exited;
    // Its lp.lock.pid is left behind, naming a pid the system may give to any process: it is not the lock.
    expect(readFileSync(join(dir, "lp.lock.pid"), "utf8")).toBe(String(holder.pid));
    writeFileSync(join(dir, "lp.lock.pid"), String(process.ppid));
    const unlock = lockDataDir(dir);
    expect(readFileSync(join(dir, "lp.lock.pid"), "utf8")).toBe(String(process.pid));
    unlock();
    expect(existsSync(join(dir, "lp.lock.pid"))).toBe(false);
  });

  it("lets one of two processes that claim it at once win, and refuses the other", async () => {
    const dir = tempDir();
    // Each claims, says whether it won, and holds what it won until the test kills it: the loser cannot claim after the winner left.
    const CLAIM = `const { lockDataDir } = await import("./core/src/storage/data-dir-lock.ts"); try { lockDataDir(process.argv[1]); console.log("won"); } catch (e) { console.log(String(e.message)); } setInterval(() => {}, 1000);`;
    const claim = () =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CLAIM, dir], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
        holders.push(child);
        let out = "";
        child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          if (out.includes("\n")) resolve(out.trim());
        });
        child.once("exit", (code) => resolve(`exited (${String(code)}) saying ${JSON.stringify(out)}`));
      });
    const answers = await Promise.all([claim(), claim()]);
    expect(answers.filter((a) => a === "won")).toHaveLength(1);
    expect(answers.find((a) => a !== "won")).toMatch(/^Another lp server (\(pid \d+\) )?is using /);
  });

  it("reads an older lp's lock, a pid in a text file: refused while that process lives, replaced once it is gone", () => {
    const dir = tempDir();
    // The test runner's parent is alive for as long as this test runs.
    writeFileSync(join(dir, "lp.lock"), String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(`Another lp server (pid ${process.ppid}) is using ${dir}`);
    expect(dataDirHolder(dir)).toEqual({ pid: process.ppid });
    expect(readFileSync(join(dir, "lp.lock"), "utf8")).toBe(String(process.ppid));
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    writeFileSync(join(dir, "lp.lock"), String(dead));
    expect(dataDirHolder(dir)).toBeNull();
    const unlock = lockDataDir(dir);
    expect(readFileSync(join(dir, "lp.lock")).subarray(0, 15).toString()).toBe("SQLite format 3");
    unlock();
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
