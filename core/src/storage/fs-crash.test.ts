import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
      // Straight from the file, before a driver opens the folder and drops its temporary files.
      const onDisk = JSON.parse(readFileSync(join(base, "hot", "record"), "utf8"));
      expect(isCrashValue(onDisk), `round ${round}`).toBe(true);
      expect(onDisk.seq).toBeGreaterThanOrEqual(last);
      const storage = toStorage(fsDurableDriver({ base }));
      const value = await storage.getItem("hot:record");
      expect(value).toEqual(onDisk);
      expect(await storage.getKeys()).toEqual(["hot:record"]);
      expect(readdirSync(join(base, ".tmp"))).toEqual([]);
      start = onDisk.seq + 1;
    }
  });
});
