import { describe, expect, it } from "vitest";
import { CollectionIndex, compareByCreated, type IndexEntry, type IndexQuery } from "./collection-index.js";
import { bytesSource, encodeSnapshot, openSnapshot, snapshotBlocks } from "./index-snapshot.js";
import { RestoringIndex } from "./restoring-index.js";

const entry = (i: number): IndexEntry => ({ id: `e${String(i).padStart(5, "0")}`, created_at: `2026-01-01T0${Math.floor(i / 3600)}:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z`, kind: i % 97 === 0 ? "rare" : "common" });

const COUNT = 5000;

/** A snapshot of COUNT entries being restored, with `changes` since laid over it, and the index it must agree with. */
async function restoring(changes = new Map<string, IndexEntry | null>()) {
  const entries = Array.from({ length: COUNT }, (_, i) => entry(i)).sort(compareByCreated);
  const whole = (await CollectionIndex.fromSorted(entries))!;
  for (const [id, changed] of changes) {
    if (changed) whole.upsert(changed);
    else whole.remove(id);
  }
  const snapshot = openSnapshot(bytesSource(Buffer.from(await encodeSnapshot("p", "s", "t", entries))), "p", "s")!;
  return { whole, restoring: new RestoringIndex<IndexEntry>(snapshotBlocks(snapshot), changes), entries };
}

/** Loads `index`, asking every query at each step: whatever it answers before the end must be the whole's answer. */
async function agreeWhileLoading(index: RestoringIndex<IndexEntry>, whole: CollectionIndex<IndexEntry>, asked: IndexQuery<IndexEntry>[]) {
  const loading = index.load();
  let answeredEarly = 0;
  while (!index.ended) {
    await index.progress();
    for (const q of asked) {
      const page = index.query(q);
      if (page === null) continue;
      expect(page).toEqual(whole.query(q));
      if (!index.ended) answeredEarly++;
    }
  }
  return { answeredEarly, built: (await loading)! };
}

/** Queries of every kind: first pages, cursors near the newest and oldest entries, a rare filter, ascending. */
function queries(entries: IndexEntry[]): IndexQuery<IndexEntry>[] {
  const at = (i: number) => ({ value: entries[i]!.created_at, id: entries[i]!.id });
  const rare = (e: IndexEntry) => e.kind === "rare";
  return [
    { field: "created_at", descending: true, limit: 20 },
    { field: "created_at", descending: true, limit: 100, after: at(COUNT - 5) },
    { field: "created_at", descending: true, limit: 20, after: at(COUNT - 1024) },
    { field: "created_at", descending: true, limit: 20, after: at(COUNT - 1025) },
    { field: "created_at", descending: true, limit: 20, after: at(10) },
    { field: "created_at", descending: true, limit: 20, after: at(0) },
    { field: "created_at", descending: true, limit: 20, filter: rare },
    { field: "created_at", descending: true, limit: 100, filter: rare },
    { field: "created_at", descending: false, limit: 20 },
    { field: "kind", descending: true, limit: 20 },
  ];
}

describe("an index being restored from its snapshot", () => {
  it("answers only pages its newest blocks say exactly, each the page the whole index gives", async () => {
    const { whole, restoring: index, entries } = await restoring();
    const asked = queries(entries);
    expect(asked.map((q) => index.query(q))).toEqual(asked.map(() => null));
    const { answeredEarly, built } = await agreeWhileLoading(index, whole, asked);
    // The first page, a cursor within the newest block and a first page of a rare filter came before the end.
    expect(answeredEarly).toBeGreaterThan(0);
    expect(built.entriesByCreated()).toEqual(entries);
    for (const q of asked) expect(built.query(q)).toEqual(whole.query(q));
  });

  it("answers the first page once the newest block is decoded, but no other sort nor a cursor older than what is", async () => {
    const { whole, restoring: index, entries } = await restoring();
    const loading = index.load();
    await index.progress();
    expect(index.ended).toBe(false);
    const [first, nearNewest, , , nearOldest, , , , ascending, other] = queries(entries);
    expect(index.query(first!)).toEqual(whole.query(first!));
    expect(index.query(nearNewest!)).toEqual(whole.query(nearNewest!));
    expect(index.query(nearOldest!)).toBeNull();
    expect(index.query(ascending!)).toBeNull();
    expect(index.query(other!)).toBeNull();
    await loading;
  });

  it("lays the changes made since the snapshot over it: removed, replaced and added entries, new and old", async () => {
    const changes = new Map<string, IndexEntry | null>();
    const removed = [COUNT - 1, COUNT - 3, COUNT - 40, 7];
    for (const i of removed) changes.set(entry(i).id, null);
    for (const i of [COUNT - 2, COUNT - 30, 12]) changes.set(entry(i).id, { ...entry(i), kind: "rare" });
    // Added: newer than every entry, between two of the newest, and among the oldest.
    const fresh: IndexEntry[] = [{ id: "z-new", created_at: "2027-01-01T00:00:00.000Z", kind: "common" }, { ...entry(COUNT - 10), id: `${entry(COUNT - 10).id}a` }, { ...entry(3), id: `${entry(3).id}a`, kind: "rare" }];
    for (const added of fresh) changes.set(added.id, added);
    const { whole, restoring: index, entries } = await restoring(changes);
    const asked = queries(entries);
    const { answeredEarly } = await agreeWhileLoading(index, whole, asked);
    expect(answeredEarly).toBeGreaterThan(0);
  });

  it("gives no index when a block is not one, and then answers nothing", async () => {
    const entries = Array.from({ length: 3000 }, (_, i) => entry(i)).sort(compareByCreated);
    const across = [...entries.slice(1024, 2048), ...entries.slice(0, 1024), ...entries.slice(2048)];
    const snapshot = openSnapshot(bytesSource(Buffer.from(await encodeSnapshot("p", "s", "t", across))), "p", "s")!;
    const index = new RestoringIndex<IndexEntry>(snapshotBlocks(snapshot));
    expect(await index.load()).toBeNull();
    expect(index.ended).toBe(true);
    expect(index.query({ field: "created_at", descending: true, limit: 20 })).toBeNull();
  });
});
