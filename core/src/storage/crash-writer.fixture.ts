/**
 * Child process of the crash test: writes large JSON values to one key through the fs driver, in a loop,
 * printing `wrote <seq>` after each write completes, until it is killed.
 * Usage: node --import tsx crash-writer.fixture.ts <base-dir>
 */
import { createHash } from "node:crypto";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { toStorage } from "./create-storage.js";

/**
 * The value written at `seq`, self-checking through `check`: megabytes for even numbers, a few KiB for
 * odd ones, so kills land in the driver's large (asynchronous) and small (synchronous) write paths.
 */
export function crashValue(seq: number) {
  const pad = `${seq}:`.repeat(seq % 2 ? 2_000 + (seq % 7) * 100 : 600_000 + (seq % 7) * 50_000);
  return { seq, pad, check: createHash("sha256").update(`${seq}|${pad}`).digest("hex") };
}

/** True when `value` is a complete value written by this script. */
export function isCrashValue(value: unknown): value is { seq: number; pad: string; check: string } {
  const v = value as { seq?: unknown; pad?: unknown; check?: unknown } | null;
  if (!v || typeof v.seq !== "number" || typeof v.pad !== "string") return false;
  return v.check === createHash("sha256").update(`${v.seq}|${v.pad}`).digest("hex");
}

if (process.argv[1]?.endsWith("crash-writer.fixture.ts")) {
  const base = process.argv[2];
  const storage = toStorage(fsDurableDriver({ base }));
  const start = Number(process.argv[3] ?? "0");
  for (let seq = start; ; seq++) {
    await storage.setItem("hot:record", crashValue(seq));
    process.stdout.write(`wrote ${seq}\n`);
  }
}
