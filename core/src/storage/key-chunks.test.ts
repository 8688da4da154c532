import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { afterEach, describe, expect, it } from "vitest";
import { createStores, type Stores } from "./create-storage.js";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { directKeys } from "./key-chunks.js";

const dirs: string[] = [];
const opened: Stores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.dispose()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fsStores() {
  const dir = mkdtempSync(join(tmpdir(), "lp-key-chunks-"));
  dirs.push(dir);
  const stores = createStores("fs", dir);
  opened.push(stores);
  return { stores, data: join(dir, "data") };
}

/** Every chunk `directKeys` hands over. */
async function chunksOf(storage: Storage, prefix: string): Promise<string[][]> {
  const chunks: string[][] = [];
  for await (const chunk of directKeys(storage, prefix)) chunks.push(chunk);
  return chunks;
}

/** What an index build read before: `getKeys`, then the keys at the prefix's depth. */
async function directByGetKeys(storage: Storage, prefix: string): Promise<string[]> {
  const depth = prefix.split(":").filter(Boolean).length + 1;
  return (await storage.getKeys(prefix)).filter((key) => key.split(":").length === depth).sort();
}

/** A file of the records folder written as is, so its name can be anything a file's name can be. */
function file(data: string, path: string[], text = "{}") {
  mkdirSync(join(data, ...path.slice(0, -1)), { recursive: true });
  writeFileSync(join(data, ...path), text);
}

describe("directKeys on fs", () => {
  it("lists exactly the keys getKeys lists directly under the prefix, odd names included", async () => {
    const { stores, data } = fsStores();
    for (let i = 0; i < 20; i++) await stores.data.setItem(`acct:a:products:p${i}`, { i });
    await stores.data.setItem("acct:a:products2:q", { other: true });
    await stores.data.setItem("acct:a:productsx", { other: true });
    // Keys below records (a folder beside them) are not direct; names unstorage rewrites are taken as it does.
    file(data, ["acct", "a", "products", "nest", "deep"]);
    file(data, ["acct", "a", "products", "we?ird"]);
    file(data, ["acct", "a", "products", "back\\slash"]);
    file(data, ["acct", "a", "products", "ends$"]);
    file(data, ["acct", "a", "products", "with:colon"]);
    file(data, ["acct", "a", "products", "sp ace"]);
    file(data, ["acct", "a", "products", ".tmp"]);
    file(data, ["acct", "a", "products", "odd?dir", "f"]);
    file(data, ["acct", "a", "products", "d", "?x"]);
    file(data, ["acct", "a", "products", "\\", "g"]);
    const prefix = "acct:a:products";
    const expected = await directByGetKeys(stores.data, prefix);
    expect(expected).toContain("acct:a:products:p0");
    expect(expected).toContain("acct:a:products:we");
    expect(expected).toContain("acct:a:products:sp ace");
    expect(expected).toEqual(expect.arrayContaining(["acct:a:products:odd", "acct:a:products:d", "acct:a:products:g"]));
    expect(expected).not.toContain("acct:a:products:nest:deep");
    expect((await chunksOf(stores.data, prefix)).flat().sort()).toEqual(expected);
  });

  it("lists nothing for an empty folder, a missing one, or a record where the folder would be", async () => {
    const { stores, data } = fsStores();
    mkdirSync(join(data, "acct", "a", "empty"), { recursive: true });
    await stores.data.setItem("acct:a:record", { x: 1 });
    for (const prefix of ["acct:a:empty", "acct:a:missing", "acct:b:missing", "acct:a:record"]) {
      expect(await directByGetKeys(stores.data, prefix)).toEqual([]);
      expect(await chunksOf(stores.data, prefix)).toEqual([]);
    }
  });

  it("on a missing folder, takes the parent's entries getKeys takes (names holding the separator)", async () => {
    const { stores, data } = fsStores();
    await stores.data.setItem("acct:a:products:p1", { x: 1 });
    file(data, ["acct", "a", "prod:x"]);
    file(data, ["acct", "a", "prod\\y"]);
    file(data, ["acct", "a", "prod:deep:er"]);
    file(data, ["top:k"]);
    file(data, [".t:k"]);
    for (const prefix of ["acct:a:prod", "top", ".t"]) {
      const expected = await directByGetKeys(stores.data, prefix);
      expect(expected.length).toBeGreaterThan(0);
      expect((await chunksOf(stores.data, prefix)).flat().sort()).toEqual(expected);
    }
  });

  it("reads a large folder through the driver a chunk at a time, with turns of the event loop between chunks", async () => {
    const { stores, data } = fsStores();
    const folder = join(data, "acct", "a", "pages");
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 3000; i++) writeFileSync(join(folder, `pg${i}`), "{}");
    const driver = fsDurableDriver({ base: data, cache: false }) as unknown as { directKeyChunks(prefix: string): AsyncIterable<string[]> };
    const raw: string[][] = [];
    for await (const chunk of driver.directKeyChunks("acct:a:pages")) raw.push(chunk);
    expect(raw.length).toBeGreaterThan(1);
    expect(raw.flat().sort()).toEqual(await directByGetKeys(stores.data, "acct:a:pages"));

    let turns = 0;
    const chunks: string[][] = [];
    for await (const chunk of directKeys(stores.data, "acct:a:pages")) {
      chunks.push(chunk);
      setImmediate(() => turns++);
    }
    expect(chunks.length).toBeGreaterThan(1);
    expect(turns).toBe(chunks.length);
    expect(new Set(chunks.flat()).size).toBe(3000);
  });
});

describe("directKeys without a chunked listing (memory)", () => {
  it("lists what getKeys lists at the prefix's depth", async () => {
    const stores = createStores("memory");
    opened.push(stores);
    for (let i = 0; i < 10; i++) await stores.data.setItem(`acct:a:items:i${i}`, { i });
    await stores.data.setItem("acct:a:items:i1:below", { x: 1 });
    await stores.data.setItem("acct:a:itemsx", { x: 1 });
    const expected = await directByGetKeys(stores.data, "acct:a:items");
    expect(expected).toHaveLength(10);
    expect((await chunksOf(stores.data, "acct:a:items")).flat().sort()).toEqual(expected);
  });
});
