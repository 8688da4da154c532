import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toStorage } from "./create-storage.js";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { KeyJournal } from "./fs-key-journal.js";

/** Limits under which the log is checkpointed only when asked. */
const NO_CHECKPOINT = { checkpointMs: 3_600_000, segmentBytes: 1 << 30, maxBytes: 1 << 30 };
const segments = (base: string) => readdirSync(join(base, ".wal")).filter((n) => n.endsWith(".log"));
const open = (base: string) => {
  const journal = new KeyJournal(base);
  const driver = fsDurableDriver({ base, keyJournal: journal, logLimits: NO_CHECKPOINT });
  return { journal, driver, storage: toStorage(driver), checkpoint: () => (driver as unknown as { checkpoint(): Promise<void> }).checkpoint() };
};

describe("fs key journal", () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "lp-journal-"));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("journals the keys of each checkpoint before its segments go, 0600 in the log's 0700 folder, and names them after the next start", async () => {
    const first = open(base);
    await first.storage.setItem("acct:a:items:i1", { v: 1 });
    await first.storage.removeItem("acct:a:items:i2");
    await first.storage.setItem("acct:b:items:i3", { v: 3 });
    await first.checkpoint();
    expect(segments(base)).toEqual([]);
    expect(readFileSync(first.journal.path, "utf8")).toContain("acct:a:items:i1 acct:a:items:i2 acct:b:items:i3");
    expect(statSync(first.journal.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, ".wal")).mode & 0o777).toBe(0o700);
    const gen = first.journal.generation!;
    // Written and not checkpointed: the next start's replay journals it.
    await first.storage.setItem("acct:a:items:i4", { v: 4 });
    const second = open(base);
    expect(second.journal.generation).toBe(gen);
    expect(second.journal.changedUnder("acct:a:items", "any", gen)?.sort()).toEqual(["i1", "i2", "i4"]);
    // A snapshot stamped in another generation, and not exact when this one began, is not covered.
    expect(second.journal.changedUnder("acct:a:items", "any", "0".repeat(32))).toBeNull();
    await second.checkpoint();
  });

  it("fails a checkpoint whose keys cannot be journaled and keeps its segments for the next start", async () => {
    const first = open(base);
    await first.storage.setItem("acct:a:items:i1", { v: 1 });
    // The journal's file cannot be appended to any more.
    rmSync(first.journal.path);
    mkdirSync(first.journal.path);
    await expect(first.checkpoint()).rejects.toThrow();
    expect(segments(base).length).toBeGreaterThan(0);
    rmSync(first.journal.path, { recursive: true });
    // The next start begins a new generation (the old one's file is gone), replays the kept segment and
    // journals its keys, so the write is neither lost nor missing from the journal.
    const second = open(base);
    expect(second.journal.generation).not.toBe(first.journal.generation);
    expect(await second.storage.getItem("acct:a:items:i1")).toEqual({ v: 1 });
    expect(second.journal.changedUnder("acct:a:items", "any", second.journal.generation!)).toEqual(["i1"]);
    expect(existsSync(second.journal.path)).toBe(true);
    await second.checkpoint();
  });
});
