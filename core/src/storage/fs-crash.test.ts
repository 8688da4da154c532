import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { toStorage } from "./create-storage.js";
import { isCrashValue } from "./crash-writer.fixture.js";
import { fsDurableDriver } from "./fs-durable-driver.js";

const script = fileURLToPath(new URL("./crash-writer.fixture.ts", import.meta.url));
const base = mkdtempSync(join(tmpdir(), "lp-crash-"));

/**
 * Runs the writer until it has reported `writes` completed writes, then SIGKILLs it a random number of
 * milliseconds later. Returns the last sequence number it reported.
 */
function runAndKill(start: number, writes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, base, String(start)], { stdio: ["ignore", "pipe", "pipe"] });
    let last = -1;
    let seen = 0;
    let stderr = "";
    let killed = false;
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      for (const match of chunk.matchAll(/wrote (\d+)/g)) {
        last = Number(match[1]);
        seen += 1;
      }
      if (seen >= writes && !killed) {
        killed = true;
        // Not waiting for work: the random delay picks the point of the next write the kill lands on.
        setTimeout(() => child.kill("SIGKILL"), Math.random() * 40);
      }
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve(last);
      else reject(new Error(`writer exited with ${code}: ${stderr}`));
    });
  });
}

describe("fs-durable driver under SIGKILL", () => {
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("always leaves the old or a new complete value, never a partial one", { timeout: 120_000 }, async () => {
    let start = 0;
    for (let round = 0; round < 10; round++) {
      const last = await runAndKill(start, 1 + Math.floor(Math.random() * 6));
      // Straight from the file, before a driver opens the folder, replays its log and drops its temporary
      // files: whole when it is there, though it may lag the last acknowledged write (that one is durable in
      // the log, and its file is renamed into place after the acknowledgement), or not be there yet at all.
      const file = join(base, "hot", "record");
      const onDisk = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : { seq: -1 };
      if (onDisk.seq >= 0) expect(isCrashValue(onDisk), `round ${round}`).toBe(true);
      // Opening replays the log: every acknowledged write is there, none is torn, and the file follows.
      const storage = toStorage(fsDurableDriver({ base }));
      const value = await storage.getItem("hot:record");
      expect(isCrashValue(value), `round ${round}`).toBe(true);
      expect((value as { seq: number }).seq).toBeGreaterThanOrEqual(Math.max(onDisk.seq, last));
      expect(JSON.parse(readFileSync(join(base, "hot", "record"), "utf8"))).toEqual(value);
      expect(await storage.getKeys()).toEqual(["hot:record"]);
      expect(readdirSync(join(base, ".tmp"))).toEqual([]);
      expect(readdirSync(join(base, ".wal"))).toEqual([]);
      start = (value as { seq: number }).seq + 1;
    }
  });
});
