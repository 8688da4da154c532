import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createStores, toStorage, type Stores } from "../storage/create-storage.js";
import { fsDurableDriver } from "../storage/fs-durable-driver.js";
import { JOURNAL_FILE } from "../storage/fs-key-journal.js";
import type { IndexSnapshotStore, RecordScan } from "./index-snapshot.js";
import { IndexRegistry } from "./index-registry.js";
import { countingReads, item, keyOf, PREFIX, referenceIndex, toEntry } from "./index-items.fixture.js";
import { TOUCHED } from "./journal-writer.fixture.js";

const writer = fileURLToPath(new URL("./journal-writer.fixture.ts", import.meta.url));
const COUNT = 600;
const dirs: string[] = [];
const opened: Stores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.dispose().catch(() => {})));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A process's stores and registry on `dir`, the snapshot checks it makes noted in `scans`. */
function open(dir: string) {
  const stores = createStores("fs", dir);
  opened.push(stores);
  const scans: (RecordScan["from"] | null)[] = [];
  const inner = stores.indexSnapshots!;
  const snapshots: IndexSnapshotStore = {
    ...inner,
    scan: async (prefix, basis, token) => {
      const scan = await inner.scan!(prefix, basis, token);
      scans.push(scan?.from ?? null);
      return scan;
    },
  };
  const { data, reads } = countingReads(stores.data);
  const registry = new IndexRegistry(data, undefined, { snapshots, persistMin: 1 });
  return { stores, registry, scans, reads };
}

/** Closes a process's stores as a clean stop does (the snapshot first, then the log and the journal). */
async function stop(process: ReturnType<typeof open>) {
  await process.registry.flush();
  opened.splice(opened.indexOf(process.stores), 1);
  await process.stores.dispose();
}

/** A data dir of COUNT items whose index was persisted at a clean stop. */
async function snapshotted(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "lp-journal-"));
  dirs.push(dir);
  const first = open(dir);
  for (let i = 1; i <= COUNT; i++) await first.stores.data.setItem(keyOf(i), item(i));
  await first.registry.get(PREFIX, toEntry);
  await stop(first);
  return dir;
}

const journalLines = (dir: string) => {
  const file = join(dir, "data", ".wal", JOURNAL_FILE);
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length - 1 : 0;
};

/**
 * Runs the writer on `dir` and SIGKILLs it once it has acknowledged `acks` writes and a checkpoint has
 * journaled some (so the restart sees keys from the journal and keys from the log's replay).
 */
function runAndKill(dir: string, acks: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", writer, dir, String(COUNT)], { stdio: ["ignore", "pipe", "pipe"] });
    let last = -1;
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      for (const m of chunk.matchAll(/ack (\d+)/g)) last = Number(m[1]);
      if (last + 1 >= acks && journalLines(dir) > 0) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => (signal === "SIGKILL" ? resolve(last) : reject(new Error(`writer exited with ${code}: ${stderr}`))));
  });
}

describe("list indexes corrected from the key journal after a kill (fs)", () => {
  it("restores, after a SIGKILL mid-writes, exactly the index a build from the records gives, reading only the journal's keys", { timeout: 120_000 }, async () => {
    const dir = await snapshotted();
    const acked = await runAndKill(dir, 300);
    expect(acked).toBeGreaterThanOrEqual(299);
    const restarted = open(dir);
    const restored = (await restarted.registry.get(PREFIX, toEntry)).entriesByCreated();
    const reads = restarted.reads();
    expect(restored).toEqual(await referenceIndex(restarted.stores.data, PREFIX));
    // The writes reached the index: changed titles, soft and hard removals, items past the seed.
    expect(restored.some((e) => e.title.startsWith("changed"))).toBe(true);
    expect(restored.some((e) => Number(e.id.slice(1)) > COUNT)).toBe(true);
    expect(restored.length).toBeLessThan(COUNT);
    // The journal was the path taken: the records it names were read again, not every file checked.
    expect(restarted.scans).toEqual(["journal"]);
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(TOUCHED);

    // Left as a kill leaves it (no stop), then written and killed again: the journal carries on across
    // starts until a clean stop, the first kill's keys (from its replay) with the second's.
    opened.splice(opened.indexOf(restarted.stores), 1);
    const again = await runAndKill(dir, 100);
    expect(again).toBeGreaterThanOrEqual(99);
    const third = open(dir);
    expect((await third.registry.get(PREFIX, toEntry)).entriesByCreated()).toEqual(await referenceIndex(third.stores.data, PREFIX));
    expect(third.scans).toEqual(["journal"]);
  });

  it("falls back to the check of the files when the journal does not cover the snapshot", { timeout: 60_000 }, async () => {
    const dir = await snapshotted();
    // A process that writes the folder without journaling (as an older lp would) empties `.tmp`, and with it
    // the marker that lets the next start carry the generation on: that start begins a new one.
    const bare = toStorage(fsDurableDriver({ base: join(dir, "data") }));
    for (let i = 1; i <= 40; i++) await bare.setItem(keyOf(i * 7), item(i * 7, `bare ${i}`));
    await bare.removeItem(keyOf(3));
    await bare.dispose();
    const restarted = open(dir);
    const restored = (await restarted.registry.get(PREFIX, toEntry)).entriesByCreated();
    expect(restored).toEqual(await referenceIndex(restarted.stores.data, PREFIX));
    expect(restored.filter((e) => e.title.startsWith("bare"))).toHaveLength(40);
    expect(restored.some((e) => e.id === item(3).id)).toBe(false);
    expect(restarted.scans).toEqual(["files"]);
  });
});
