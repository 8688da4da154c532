import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toStorage } from "./create-storage.js";
import { fsDurableDriver } from "./fs-durable-driver.js";

/** Limits under which the log is never checkpointed on its own. */
const NO_CHECKPOINT = { checkpointMs: 3_600_000, segmentBytes: 1 << 30, maxBytes: 1 << 30 };

/** The fs driver with its `settle` (every acknowledged write in its record file). */
const openDriver = (base: string, logLimits: Parameters<typeof fsDurableDriver>[0]["logLimits"]) =>
  fsDurableDriver({ base, logLimits }) as ReturnType<typeof fsDurableDriver> & { settle(): Promise<void> };

/** The record files under `dir` by key (`a:b` for `dir/a/b`), with their texts; `.tmp` and `.wal` left out. */
function onDisk(dir: string, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!prefix && (entry.name === ".tmp" || entry.name === ".wal")) continue;
    const key = prefix ? `${prefix}:${entry.name}` : entry.name;
    if (entry.isDirectory()) for (const [k, v] of onDisk(join(dir, entry.name), key)) out.set(k, v);
    else out.set(key, readFileSync(join(dir, entry.name), "utf8"));
  }
  return out;
}

describe("fs write-ahead log: removals of keys whose files may not be written yet", () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "lp-wal-removals-"));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("a key written and removed before its file was written ends with no file, and reads agree at each step", async () => {
    const driver = openDriver(base, NO_CHECKPOINT);
    const storage = toStorage(driver);
    const writes = Array.from({ length: 40 }, (_, i) => storage.setItem(`outbox:e${i}`, { i }));
    const removals = Array.from({ length: 40 }, (_, i) => storage.removeItem(`outbox:e${i}`));
    await Promise.all([...writes, ...removals]);
    for (let i = 0; i < 40; i++) expect(await storage.hasItem(`outbox:e${i}`)).toBe(false);
    await driver.settle();
    expect(onDisk(base).size).toBe(0);
    await driver.dispose!();
  });

  it("a removal after a settle wrote the key removes its file", async () => {
    const driver = openDriver(base, NO_CHECKPOINT);
    const storage = toStorage(driver);
    await storage.setItem("k:a", { v: 1 });
    await driver.settle();
    expect(onDisk(base).has("k:a")).toBe(true);
    await storage.setItem("k:a", { v: 2 });
    await storage.removeItem("k:a");
    await driver.settle();
    expect(onDisk(base).has("k:a")).toBe(false);
    await driver.dispose!();
  });

  it("a removal after a write whose file landed while a later write was being logged removes the file", { timeout: 60_000 }, async () => {
    const driver = openDriver(base, NO_CHECKPOINT);
    const storage = toStorage(driver);
    for (let round = 0; round < 20; round++) {
      const keys = Array.from({ length: 50 }, (_, i) => `race:r${round}k${i}`);
      // Each key's two writes are checked before either is logged (each found no file); some of the first
      // writes' files land while the second frame is being flushed, and the removals come while the writers
      // are still behind on the second ones.
      const firsts = keys.map((key) => storage.setItem(key, { v: 1 }));
      const seconds = keys.map((key) => storage.setItem(key, { v: 2 }));
      await Promise.all([...firsts, ...seconds]);
      await Promise.all(keys.map((key) => storage.removeItem(key)));
    }
    await driver.settle();
    expect(onDisk(base).size).toBe(0);
    await driver.dispose!();
  });

  it("ends with exactly the last write of each key when writes, removals, settles and checkpoints interleave", { timeout: 60_000 }, async () => {
    // Checkpoints every few ms, so record files land while later writes of the same keys are checked and logged.
    const driver = openDriver(base, { checkpointMs: 2, segmentBytes: 4096, maxBytes: 1 << 20 });
    const storage = toStorage(driver);
    const model = new Map<string, string | null>();
    let seed = 0x2545f491;
    const random = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    for (let round = 0; round < 60; round++) {
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 50; i++) {
        const key = `r:k${random(12)}`;
        const roll = random(10);
        if (roll < 5) {
          const value = { round, i };
          model.set(key, JSON.stringify(value));
          calls.push(storage.setItem(key, value));
        } else if (roll < 9) {
          model.set(key, null);
          calls.push(storage.removeItem(key));
        } else {
          calls.push(driver.settle());
        }
        if (random(4) === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(calls);
      for (const [key, text] of model) expect(await storage.getItem(key)).toEqual(text === null ? null : JSON.parse(text));
    }
    await driver.settle();
    const expected = new Map([...model].filter((entry): entry is [string, string] => entry[1] !== null));
    expect(onDisk(base)).toEqual(expected);
    await driver.dispose!();
    expect(onDisk(base)).toEqual(expected);
  });
});
