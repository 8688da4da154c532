import { existsSync, mkdtempSync, openSync, closeSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStores, toStorage, type Stores } from "./create-storage.js";
import { fsDurableDriver } from "./fs-durable-driver.js";

/** A document an import takes: records by key, media as base64. */
interface Doc {
  records: Record<string, unknown>;
  media: Record<string, string>;
}
const OLD: Doc = { records: { "accounts:a": { v: "old" }, "accounts:gone": { v: "old" } }, media: { "products:p:old.png": "b2xk" } };
const NEW: Doc = { records: { "accounts:a": { v: "new" }, "accounts:b": { v: "new" } }, media: { "products:p:new.png": "bmV3" } };

/** What a data dir holds, as an import sees it. */
async function contents(stores: Stores) {
  const records: Record<string, unknown> = {};
  for (const key of (await stores.data.getKeys()).sort()) records[key] = await stores.data.getItem(key);
  return { records, media: (await stores.media.getKeys()).sort() };
}
const expected = (doc: Doc) => ({ records: { "meta:k": { keep: true }, ...doc.records }, media: Object.keys(doc.media).sort() });

/**
 * An fs import writes the new data aside, marks the commit, then swaps folders. These tests leave the
 * data dir as a kill would between those steps and open it again, as the next start does.
 */
describe("fs import: the old data or the new, never a mix", () => {
  const dirs: string[] = [];
  const opened: Stores[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.dispose();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const open = (dir: string) => {
    const stores = createStores("fs", dir);
    opened.push(stores);
    return stores;
  };
  async function withOld() {
    const dir = mkdtempSync(join(tmpdir(), "lp-replace-"));
    dirs.push(dir);
    const stores = open(dir);
    await stores.data.setItem("meta:k", { keep: true });
    for (const [k, v] of Object.entries(OLD.records)) await stores.data.setItem(k, v as never);
    for (const [k, v] of Object.entries(OLD.media)) await stores.media.setItemRaw(k, Buffer.from(v, "base64"));
    // Every acknowledged write in its file, as when the process is killed and no write of it is under way.
    await stores.settle?.();
    return { dir, stores };
  }
  /** The folders written aside, as the import leaves them before its commit mark. */
  async function writeAside(dir: string) {
    const data = toStorage(fsDurableDriver({ base: join(dir, "data.next") }));
    const media = toStorage(fsDurableDriver({ base: join(dir, "media.next") }));
    await data.setItem("meta:k", { keep: true });
    for (const [k, v] of Object.entries(NEW.records)) await data.setItem(k, v as never);
    for (const [k, v] of Object.entries(NEW.media)) await media.setItemRaw(k, Buffer.from(v, "base64"));
    // As the import does before its mark: the folders written aside are complete, with no log left.
    await Promise.all([data.dispose(), media.dispose()]);
  }
  const mark = (dir: string) => closeSync(openSync(join(dir, "import.commit"), "w"));

  it("replaces records and media, keeps meta, and reads the new data at once (no stale cache)", async () => {
    const { dir, stores } = await withOld();
    expect(await stores.data.getItem("accounts:a")).toEqual({ v: "old" }); // cached by the driver
    await stores.replace!(NEW.records, NEW.media);
    expect(await contents(stores)).toEqual(expected(NEW));
    expect(existsSync(join(dir, "data.old")) || existsSync(join(dir, "data.next")) || existsSync(join(dir, "import.commit"))).toBe(false);
  });

  it("a kill before the commit mark leaves the old data", async () => {
    const { dir } = await withOld();
    await writeAside(dir);
    expect(await contents(open(dir))).toEqual(expected(OLD));
    expect(existsSync(join(dir, "data.next"))).toBe(false);
  });

  it("a kill after the mark, with one folder swapped, is finished at the next start: the new data", async () => {
    const { dir } = await withOld();
    await writeAside(dir);
    mark(dir);
    renameSync(join(dir, "data"), join(dir, "data.old"));
    renameSync(join(dir, "data.next"), join(dir, "data"));
    expect(await contents(open(dir))).toEqual(expected(NEW));
    expect(existsSync(join(dir, "import.commit")) || existsSync(join(dir, "media.next")) || existsSync(join(dir, "data.old"))).toBe(false);
  });

  it("a kill after the mark, between the two renames of a folder, is finished too", async () => {
    const { dir } = await withOld();
    await writeAside(dir);
    mark(dir);
    renameSync(join(dir, "data"), join(dir, "data.old"));
    expect(await contents(open(dir))).toEqual(expected(NEW));
  });
});
