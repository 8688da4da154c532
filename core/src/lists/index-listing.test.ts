import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { CollectionIndex, type IndexEntry, type IndexQuery } from "./collection-index.js";
import { countingReads, item, keyOf, PREFIX, toEntry } from "./index-items.fixture.js";
import { IndexRegistry, type IndexListing } from "./index-registry.js";
import { snapshotBuffer, type IndexSnapshotStore } from "./index-snapshot.js";

// Below 3,600: the fixture's creation times wrap after that.
const COUNT = 3000;

/** Snapshots kept in memory, at a token that never changes (the records are not touched behind the registry). */
function memorySnapshots(): IndexSnapshotStore {
  const files = new Map<string, Buffer>();
  return {
    stamp: async () => ({ token: "t1", settled: true }),
    read: async (prefix) => files.get(prefix) ?? null,
    write: async (prefix, bytes) => void files.set(prefix, snapshotBuffer(bytes)),
    remove: async (prefix) => void files.delete(prefix),
    removeAll: async () => files.clear(),
  };
}

/** What paginate does: asks, and waits for progress until the listing can answer. */
async function page(listing: IndexListing<IndexEntry>, q: IndexQuery<IndexEntry>) {
  let answer = listing.query(q);
  while (!answer) {
    await listing.progress!();
    answer = listing.query(q);
  }
  return answer;
}

async function persisted() {
  const storage = createStorage();
  for (let i = 0; i < COUNT; i++) await storage.setItem(keyOf(i), item(i));
  const snapshots = memorySnapshots();
  const first = new IndexRegistry(storage, undefined, { snapshots, persistMin: 1 });
  const whole = (await first.get(PREFIX, toEntry)) as unknown as CollectionIndex<IndexEntry>;
  await first.flush();
  return { storage, snapshots, whole };
}

const firstPage: IndexQuery<IndexEntry> = { field: "created_at", descending: true, limit: 20 };

describe("a listing while the index is restored", () => {
  it("answers from the snapshot being restored, as the whole index would, without reading a record", async () => {
    const { storage, snapshots, whole } = await persisted();
    const { data, reads } = countingReads(storage);
    const registry = new IndexRegistry(data, undefined, { snapshots, persistMin: 1 });
    const listing = await registry.listing(PREFIX, toEntry);
    expect(listing).not.toBeInstanceOf(CollectionIndex);
    expect(await page(listing, firstPage)).toEqual(whole.query(firstPage));
    const cursor = { value: item(100).created_at, id: item(100).id };
    const older = { ...firstPage, after: cursor };
    expect(await page(listing, older)).toEqual(whole.query(older));
    const ascending = { ...firstPage, descending: false };
    expect(await page(listing, ascending)).toEqual(whole.query(ascending));
    // Once loaded, a listing is the index itself.
    expect(await registry.listing(PREFIX, toEntry)).toBeInstanceOf(CollectionIndex);
    expect(reads()).toBe(0);
  });

  it("stops answering from the snapshot once a write to the collection begins, and then lists that write", async () => {
    const { storage, snapshots } = await persisted();
    const registry = new IndexRegistry(storage, undefined, { snapshots, persistMin: 1 });
    const listing = await registry.listing(PREFIX, toEntry);
    const written = item(3500);
    // The write's index update begins (its record is stored below, before anything reads it).
    const updating = registry.update(PREFIX, toEntry, (index) => index.upsert(toEntry(written)!));
    expect(listing.query(firstPage)).toBeNull();
    await storage.setItem(keyOf(3500), written);
    // Once the write is acknowledged, the same listing (a request that came before it) answers with it.
    await updating;
    const answer = await page(listing, firstPage);
    expect(answer.items[0]).toEqual(toEntry(written));
    expect(answer.items).toHaveLength(20);
  });
});
