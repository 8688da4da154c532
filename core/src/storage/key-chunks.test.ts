import type { Storage } from "unstorage";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../testing/temp-dirs.js";
import { createStores, type Stores } from "./create-storage.js";
import { directKeys } from "./key-chunks.js";

const opened: Stores[] = [];
const tempDir = useTempDirs(async () => void (await Promise.all(opened.splice(0).map((s) => s.dispose()))));

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

describe("directKeys without a chunked listing (memory, SQLite)", () => {
  it.each(["memory", "sqlite"] as const)("lists what getKeys lists at the prefix's depth (%s)", async (kind) => {
    const stores = kind === "memory" ? createStores("memory") : createStores("sqlite", tempDir("key-chunks"));
    opened.push(stores);
    for (let i = 0; i < 10; i++) await stores.data.setItem(`acct:a:items:i${i}`, { i });
    await stores.data.setItem("acct:a:items:i1:below", { x: 1 });
    await stores.data.setItem("acct:a:itemsx", { x: 1 });
    const expected = await directByGetKeys(stores.data, "acct:a:items");
    expect(expected).toHaveLength(10);
    expect((await chunksOf(stores.data, "acct:a:items")).flat().sort()).toEqual(expected);
  });
});
