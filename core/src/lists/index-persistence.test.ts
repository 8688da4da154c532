import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { afterEach, describe, expect, it } from "vitest";
import { createStores, type Stores } from "../storage/create-storage.js";
import { INDEX_DIR } from "../storage/fs-index-snapshots.js";
import { IndexRegistry } from "./index-registry.js";
import { countingReads, item, keyOf, PREFIX, toEntry, type Item } from "./index-items.fixture.js";


const dirs: string[] = [];
const opened: Stores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.dispose()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An fs data dir, and a way to open it again as a restarted process would. */
function dataDir() {
  const dir = mkdtempSync(join(tmpdir(), "lp-index-"));
  dirs.push(dir);
  return dir;
}
async function open(dir: string) {
  // The processes opened before stop first, cleanly (their write-ahead logs checkpointed), as at a restart.
  await Promise.all(opened.splice(0).map((s) => s.dispose()));
  const stores = createStores("fs", dir);
  opened.push(stores);
  const { data, reads } = countingReads(stores.data);
  const registry = new IndexRegistry(data, undefined, { snapshots: stores.indexSnapshots, persistMin: 1 });
  return { stores, registry, reads };
}
const list = async (registry: IndexRegistry) => (await registry.get(PREFIX, toEntry)).query({ field: "created_at", descending: true, limit: 1000 }).items;
const snapshotFiles = (dir: string) => (existsSync(join(dir, INDEX_DIR)) ? readdirSync(join(dir, INDEX_DIR)).filter((name) => name.endsWith(".idx")) : []);
/** Moves the records folder's timestamps into the past, as if the last write were minutes old. */
const age = async (dir: string) => {
  // Once every acknowledged write is in its file: a rename landing later would stamp the folder again.
  await Promise.all(opened.map((s) => s.settle?.()));
  const folder = join(dir, "data", ...PREFIX.split(":"));
  const past = new Date(Date.now() - 600_000);
  utimesSync(folder, past, past);
};

async function seeded(count: number) {
  const dir = dataDir();
  const first = await open(dir);
  for (let i = 1; i <= count; i++) await first.stores.data.setItem(keyOf(i), item(i));
  return { dir, first };
}

describe("persisted list indexes on fs", () => {
  it("are written at close and restore the index at the next start without reading a record", async () => {
    const { dir, first } = await seeded(40);
    const before = await list(first.registry);
    await first.registry.flush();
    expect(snapshotFiles(dir)).toHaveLength(1);
    const file = join(dir, INDEX_DIR, snapshotFiles(dir)[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, INDEX_DIR)).mode & 0o777).toBe(0o700);

    const second = await open(dir);
    expect(await list(second.registry)).toEqual(before);
    expect(before).toHaveLength(40);
    expect(second.reads()).toBe(0);
  });

  it("once a record was written, replaced or removed after them, give the records as they are now", async () => {
    const { dir, first } = await seeded(30);
    await list(first.registry);
    await first.registry.flush();
    // Another process (or an older lp) changes the records without knowing of the snapshot.
    const other = (await open(dir)).stores;
    await other.data.setItem(keyOf(31), item(31));
    await other.data.setItem(keyOf(5), item(5, "renamed"));
    await other.data.removeItem(keyOf(7));
    await other.data.setItem(keyOf(9), { ...item(9), gone: true });

    const second = await open(dir);
    const items = await list(second.registry);
    expect(second.reads()).toBeGreaterThan(0);
    const ids = items.map((e) => e.id);
    expect(ids).toContain("i0031");
    expect(ids).not.toContain("i0007");
    expect(ids).not.toContain("i0009");
    expect(items.find((e) => e.id === "i0005")?.title).toBe("renamed");
    expect(items).toHaveLength(29);
  });

  it("are rebuilt from the records when the file is damaged, truncated or of another entry shape", async () => {
    const { dir, first } = await seeded(25);
    const expected = await list(first.registry);
    await first.registry.flush();
    const file = join(dir, INDEX_DIR, snapshotFiles(dir)[0]!);
    const good = readFileSync(file, "utf8");
    const damaged = [
      good.replace('"item 3"', '"item X"'), // an edited entry: the checksum no longer matches
      good.slice(0, good.length - 20), // torn
      `${good.split("\n")[0]}\n`, // the body missing
      good.replace(/"shape":"[0-9a-f]+"/, '"shape":"0000000000000000"'), // written by code with other entries
      "not a snapshot",
    ];
    for (const text of damaged) {
      writeFileSync(file, text);
      const next = await open(dir);
      expect(await list(next.registry)).toEqual(expected);
      expect(next.reads()).toBeGreaterThan(0);
      // The rebuilt index replaced the damaged file: the start after that reads no record.
      await next.registry.settle();
      const after = await open(dir);
      expect(await list(after.registry)).toEqual(expected);
      expect(after.reads()).toBe(0);
    }
  });

  it("a build persists its snapshot only when the folder did not change while it read", async () => {
    const { dir } = await seeded(20);
    await age(dir);
    const quiet = await open(dir);
    await list(quiet.registry);
    await quiet.registry.settle();
    expect(snapshotFiles(dir)).toHaveLength(1);
    expect(await list((await open(dir)).registry)).toHaveLength(20);

    // Now a write lands in the middle of the build (as a request of the same process would).
    rmSync(join(dir, INDEX_DIR), { recursive: true });
    await age(dir);
    const busy = await open(dir);
    let wrote = false;
    let updating: Promise<void> | undefined;
    const registry = new IndexRegistry(
      new Proxy(busy.stores.data, {
        get(target, name, receiver) {
          if (name !== "getItem") return Reflect.get(target, name, receiver) as unknown;
          return async (key: string) => {
            if (!wrote) {
              wrote = true;
              await busy.stores.data.setItem(keyOf(21), item(21));
              // The service applies its own write once the index is there: it waits for the build.
              updating = registry.update(PREFIX, toEntry, (index) => index.upsert(toEntry(item(21))!));
            }
            return target.getItem(key);
          };
        },
      }) as Storage,
      undefined,
      { snapshots: busy.stores.indexSnapshots, persistMin: 1 },
    );
    await list(registry);
    await updating;
    await registry.settle();
    const items = await list(registry);
    expect(wrote).toBe(true);
    expect(items.map((e) => e.id)).toContain("i0021");
    expect(items).toHaveLength(21);
    expect(snapshotFiles(dir)).toHaveLength(0);
    // Writes made while a build runs still reach the index, and the next start agrees with the records.
    const next = await open(dir);
    expect((await list(next.registry)).map((e) => e.id)).toEqual(items.map((e) => e.id));
  });

  it("a large index builds in slices that yield to the event loop", async () => {
    const { dir } = await seeded(300);
    const second = await open(dir);
    const pending = second.registry.get(PREFIX, toEntry);
    let turns = 0;
    // The build yields: other work gets turns of the event loop before it is done.
    while (!(await Promise.race([pending.then(() => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]))) turns += 1;
    expect(turns).toBeGreaterThan(2);
    expect((await pending).size).toBe(300);
  });

  it("clear() and drop() remove the persisted snapshots", async () => {
    const { dir, first } = await seeded(10);
    await list(first.registry);
    await first.registry.flush();
    expect(snapshotFiles(dir)).toHaveLength(1);
    first.registry.drop(PREFIX);
    await first.registry.settle();
    expect(snapshotFiles(dir)).toHaveLength(0);
    await list(first.registry);
    await first.registry.flush();
    first.registry.clear();
    await first.registry.settle();
    expect(snapshotFiles(dir)).toHaveLength(0);
  });
});
