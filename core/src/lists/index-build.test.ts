import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStores, type Stores } from "../storage/create-storage.js";
import type { IndexEntry } from "./collection-index.js";
import { buildIndex } from "./index-build.js";
import { item, PREFIX, referenceIndex, seedItems, toEntry } from "./index-items.fixture.js";

const dirs: string[] = [];
const opened: Stores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.dispose()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.each(["memory", "sqlite"] as const)("buildIndex on %s", (kind) => {
  const open = () => {
    const dir = kind === "sqlite" ? mkdtempSync(join(tmpdir(), "lp-build-")) : undefined;
    if (dir) dirs.push(dir);
    const stores = createStores(kind, dir);
    opened.push(stores);
    return { stores };
  };

  it("gives the index of the records directly under the prefix, as reading every listed record does", async () => {
    const { stores } = open();
    await seedItems(stores.data, 2500);
    const built = await buildIndex(stores.data, PREFIX, toEntry as (r: unknown) => IndexEntry | null);
    const expected = await referenceIndex(stores.data, PREFIX);
    expect(expected).toHaveLength(2500 - Math.floor(2500 / 7));
    expect(built.entriesByCreated()).toEqual(expected);
    expect(built.query({ field: "created_at", descending: true, limit: 2 }).items.map((e) => e.id)).toEqual([item(2500).id, item(2498).id]);
  });

  it("leaves out records below the collection's records", async () => {
    const { stores } = open();
    await seedItems(stores.data, 30);
    await stores.data.setItem(`${PREFIX}:deep:er`, item(99));
    const built = await buildIndex(stores.data, PREFIX, toEntry as (r: unknown) => IndexEntry | null);
    expect(built.entriesByCreated()).toEqual(await referenceIndex(stores.data, PREFIX));
    expect(built.get(item(99).id)).toBeUndefined();
    expect(built.size).toBe(30 - 4);
  });
});
