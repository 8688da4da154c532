import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { afterSettle, createStores, type Stores } from "../storage/create-storage.js";
import { fsIndexSnapshots, INDEX_DIR } from "../storage/fs-index-snapshots.js";
import type { IndexEntry } from "./collection-index.js";
import { IndexRegistry } from "./index-registry.js";
import { countingReads, item, keyOf, PREFIX, referenceIndex, toEntry } from "./index-items.fixture.js";

const dirs: string[] = [];
const opened: Stores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.dispose()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const COUNT = 60;
const folderOf = (dir: string) => join(dir, "data", ...PREFIX.split(":"));

/**
 * A process's stores and registry on `dir`. The snapshots count a file as changed only when its ctime is
 * after the stamp (no margin), so that which records are read again says exactly what the check found.
 */
function open(dir: string) {
  const stores = createStores("fs", dir);
  opened.push(stores);
  const { data, reads } = countingReads(stores.data);
  // Stamped once every acknowledged write is in its file, as the stores' own snapshots are.
  const snapshots = afterSettle(fsIndexSnapshots(dir, { marginMs: 0 }), () => stores.settle!());
  const registry = new IndexRegistry(data, undefined, { snapshots, persistMin: 1 });
  return { stores, registry, reads };
}
const entries = async (registry: IndexRegistry) => (await registry.get(PREFIX, toEntry)).entriesByCreated();

/**
 * Resolves once a file written now gets a ctime later than `ms`: the kernel stamps files from a clock of its
 * own, coarser than the process's, so "after the snapshot" must be after it on that clock.
 */
async function fsClockPast(dir: string, ms: number): Promise<void> {
  const probe = join(dir, "clock-probe");
  for (;;) {
    writeFileSync(probe, "");
    if (statSync(probe).ctimeMs > ms + 1) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The snapshot file of the data dir, and the time its stamp was taken (from its header). */
function snapshotOf(dir: string) {
  const file = join(dir, INDEX_DIR, readdirSync(join(dir, INDEX_DIR)).find((n) => n.endsWith(".idx"))!);
  const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { token: string; basis: string };
  return { file, token: header.token, stampedAt: Number(header.basis.split(":")[2]) };
}

/**
 * COUNT items written, `before(dir)` run, then a snapshot taken at a clean stop whose stamp is later (on the
 * files' clock) than all of that; returns once anything written is later than the stamp.
 */
async function snapshotted(before: (dir: string) => void = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), "lp-stale-"));
  dirs.push(dir);
  const first = open(dir);
  for (let i = 1; i <= COUNT; i++) await first.stores.data.setItem(keyOf(i), item(i));
  await first.stores.settle!();
  before(dir);
  await fsClockPast(dir, Date.now());
  await entries(first.registry);
  await first.registry.flush();
  // A clean stop: the write-ahead log is checkpointed and gone.
  opened.splice(opened.indexOf(first.stores), 1);
  await first.stores.dispose();
  await fsClockPast(dir, Date.now());
  // Another process (or this one after a kill) changes the records without writing a snapshot.
  const other = createStores("fs", dir);
  opened.push(other);
  return { dir, data: other.data, stores: other };
}

/** The first page by `created_at` descending, asked as a list asks it while the index is restored. */
async function firstPage(registry: IndexRegistry) {
  const listing = await registry.listing(PREFIX, toEntry);
  const q = { field: "created_at", descending: true, limit: 10 } as const;
  for (let page = listing.query(q); ; page = listing.query(q)) {
    if (page) return page.items;
    await listing.progress!();
  }
}

describe("an fs snapshot whose folder changed since it was taken", () => {
  it("is checked against the files: only records changed since are read again, and the index is the one a build gives", async () => {
    const late = (dir: string) => join(dir, "late.tmp");
    // A write whose temporary file is written before the snapshot, and renamed into place after it.
    const { dir, data } = await snapshotted((d) => writeFileSync(late(d), JSON.stringify(item(20, "renamed after the snapshot"))));
    renameSync(late(dir), join(folderOf(dir), item(20).id));
    const { stampedAt } = snapshotOf(dir);
    // Its modification time is older than the snapshot: only its ctime says it changed since.
    expect(statSync(join(folderOf(dir), item(20).id)).mtimeMs).toBeLessThan(stampedAt);
    await data.setItem(keyOf(COUNT + 1), item(COUNT + 1)); // created
    await data.setItem(keyOf(5), item(5, "updated")); // updated
    await data.setItem(keyOf(COUNT), { ...item(COUNT), gone: true }); // updated, no entry any more
    await data.removeItem(keyOf(7)); // removed
    await data.removeItem(keyOf(COUNT - 2));

    const second = open(dir);
    const expected = await referenceIndex(data, PREFIX);
    expect(await firstPage(second.registry)).toEqual(expected.slice(-10).reverse());
    expect(await entries(second.registry)).toEqual(expected);
    // The four records written since, and nothing else.
    expect(second.reads()).toBe(4);
    const titles = new Map(expected.map((e: IndexEntry) => [e.id, e.title]));
    expect(titles.get(item(20).id)).toBe("renamed after the snapshot");
    expect(titles.get(item(5).id)).toBe("updated");
    expect([item(7).id, item(COUNT).id, item(COUNT - 2).id].some((id) => titles.has(id))).toBe(false);
    expect(titles.has(item(COUNT + 1).id)).toBe(true);
  });

  it("is written again once checked when the folder is quiet, and the next start reads no record", async () => {
    const { dir, data, stores } = await snapshotted();
    await data.setItem(keyOf(3), item(3, "changed"));
    await data.removeItem(keyOf(4));
    await stores.settle!();
    const before = snapshotOf(dir).token;
    const second = open(dir);
    // Once the start's replay of the log is in the files, as if the last write were minutes old: nothing can
    // write within the same timestamp tick.
    await second.stores.settle!();
    const past = new Date(Date.now() - 600_000);
    utimesSync(folderOf(dir), past, past);
    const expected = await referenceIndex(data, PREFIX);
    expect(await entries(second.registry)).toEqual(expected);
    await second.registry.settle();
    expect(snapshotOf(dir).token).not.toBe(before);
    const third = open(dir);
    expect(await entries(third.registry)).toEqual(expected);
    expect(third.reads()).toBe(0);
  });

  it("is rebuilt from the records when the folder was swapped for another one (an import, a restored backup)", async () => {
    const copy = (dir: string) => join(dir, "copy");
    // The other folder's files all predate the snapshot, and one of them differs from what it lists.
    const { dir, data } = await snapshotted((d) => {
      cpSync(folderOf(d), copy(d), { recursive: true });
      writeFileSync(join(copy(d), item(3).id), JSON.stringify(item(3, "from the other folder")));
      rmSync(join(copy(d), item(4).id));
    });
    renameSync(folderOf(dir), `${folderOf(dir)}.old`);
    renameSync(copy(dir), folderOf(dir));
    rmSync(`${folderOf(dir)}.old`, { recursive: true });

    const second = open(dir);
    const expected = await referenceIndex(data, PREFIX);
    expect(expected.find((e: IndexEntry) => e.id === item(3).id)?.title).toBe("from the other folder");
    expect(await entries(second.registry)).toEqual(expected);
    expect(second.reads()).toBe(COUNT - 1);
  });

  it("is rebuilt from the records when its header was edited (its basis moved later: every file would look unchanged)", async () => {
    const { dir, data } = await snapshotted();
    await data.setItem(keyOf(3), item(3, "changed"));
    await data.removeItem(keyOf(4));
    const { file, stampedAt } = snapshotOf(dir);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(`:${stampedAt}"`, `:${stampedAt + 3_600_000}"`));
    expect(readFileSync(file, "utf8")).not.toBe(text);

    const second = open(dir);
    const expected = await referenceIndex(data, PREFIX);
    expect(await entries(second.registry)).toEqual(expected);
    expect(expected.find((e: IndexEntry) => e.id === item(3).id)?.title).toBe("changed");
    expect(second.reads()).toBe(COUNT - 1);
  });
});
