import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStores, type Stores } from "../storage/create-storage.js";
import { CollectionIndex, type IndexEntry, type IndexQuery } from "./collection-index.js";
import { countingReads, item, keyOf, PREFIX, toEntry } from "./index-items.fixture.js";
import { IndexRegistry, type IndexListing } from "./index-registry.js";

// Below 3,600: the fixture's creation times wrap after that.
const COUNT = 3000;

const dirs: string[] = [];
const opened: Stores[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.dispose()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What paginate does: asks, and waits for progress until the listing can answer. */
async function page(listing: IndexListing<IndexEntry>, q: IndexQuery<IndexEntry>) {
  let answer = listing.query(q);
  while (!answer) {
    await listing.progress!();
    answer = listing.query(q);
  }
  return answer;
}

/** A SQLite store holding COUNT items, opened again as at a restart, and the index a plain build gives. */
async function restarted() {
  const dir = mkdtempSync(join(tmpdir(), "lp-listing-"));
  dirs.push(dir);
  const first = createStores("sqlite", dir);
  await first.batch(Array.from({ length: COUNT }, (_, i) => ({ key: keyOf(i), value: item(i) })));
  const whole = (await new IndexRegistry(first.data).get(PREFIX, toEntry)) as unknown as CollectionIndex<IndexEntry>;
  await first.dispose();
  const stores = createStores("sqlite", dir);
  opened.push(stores);
  return { stores, whole };
}

const firstPage: IndexQuery<IndexEntry> = { field: "created_at", descending: true, limit: 20 };

describe("a listing while the index loads newest first (SQLite)", () => {
  it("answers from the newest records, as the whole index would, and reads no record one by one", async () => {
    const { stores, whole } = await restarted();
    const { data, reads } = countingReads(stores.data);
    const registry = new IndexRegistry(data, undefined, { ordered: stores.ordered });
    const listing = await registry.listing(PREFIX, toEntry);
    expect(listing).not.toBeInstanceOf(CollectionIndex);
    // The first page comes from the first block, before the rest of the collection is read.
    expect(listing.query(firstPage)).toEqual(whole.query(firstPage));
    const cursor = { value: item(100).created_at, id: item(100).id };
    const older = { ...firstPage, after: cursor };
    expect(await page(listing, older)).toEqual(whole.query(older));
    const ascending = { ...firstPage, descending: false };
    expect(await page(listing, ascending)).toEqual(whole.query(ascending));
    // Once loaded, a listing answers from the index, which equals a plain build.
    expect((await registry.listing(PREFIX, toEntry)).query(firstPage)).toEqual(whole.query(firstPage));
    expect((await registry.get(PREFIX, toEntry)).entriesByCreated()).toEqual(whole.entriesByCreated());
    expect(reads()).toBe(0);
  });

  it("stops answering from the blocks once a write to the collection begins, and then lists that write", async () => {
    const { stores } = await restarted();
    const registry = new IndexRegistry(stores.data, undefined, { ordered: stores.ordered });
    const listing = await registry.listing(PREFIX, toEntry);
    const written = item(3500);
    // The write's index update begins (its record is stored below, before anything reads it).
    const updating = registry.update(PREFIX, toEntry, (index) => index.upsert(toEntry(written)!));
    expect(listing.query(firstPage)).toBeNull();
    await stores.data.setItem(keyOf(3500), written);
    // Once the write is acknowledged, the same listing (a request that came before it) answers with it.
    await updating;
    const answer = await page(listing, firstPage);
    expect(answer.items[0]).toEqual(toEntry(written));
    expect(answer.items).toHaveLength(20);
  });
});
