import { describe, expect, it } from "vitest";
import { CollectionIndex, compareByCreated, type IndexEntry, type IndexQuery } from "./collection-index.js";
import { encodeSnapshot, openSnapshot } from "./index-snapshot.js";
import { RestoringIndex } from "./restoring-index.js";

const entry = (i: number): IndexEntry => ({ id: `e${String(i).padStart(5, "0")}`, created_at: `2026-01-01T0${Math.floor(i / 3600)}:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z`, kind: i % 97 === 0 ? "rare" : "common" });

const COUNT = 5000;

async function restoring() {
  const entries = Array.from({ length: COUNT }, (_, i) => entry(i)).sort(compareByCreated);
  const whole = (await CollectionIndex.fromSorted(entries))!;
  const snapshot = (await openSnapshot(Buffer.from(await encodeSnapshot("p", "s", "t", entries)), "p", "s"))!;
  return { whole, restoring: new RestoringIndex<IndexEntry>(snapshot), entries };
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
    const loading = index.load();
    let answeredEarly = 0;
    let steps = 0;
    while (!index.ended) {
      await index.progress();
      steps++;
      for (const q of asked) {
        const page = index.query(q);
        if (page === null) continue;
        expect(page).toEqual(whole.query(q));
        if (!index.ended) answeredEarly++;
      }
    }
    expect(steps).toBeGreaterThan(1);
    // The first page, a cursor within the newest block and a first page of a rare filter came before the end.
    expect(answeredEarly).toBeGreaterThan(0);
    const built = (await loading)!;
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

  it("gives no index when a block is not one, and then answers nothing", async () => {
    const entries = Array.from({ length: 3000 }, (_, i) => entry(i)).sort(compareByCreated);
    const across = [...entries.slice(1024, 2048), ...entries.slice(0, 1024), ...entries.slice(2048)];
    const snapshot = (await openSnapshot(Buffer.from(await encodeSnapshot("p", "s", "t", across)), "p", "s"))!;
    const index = new RestoringIndex<IndexEntry>(snapshot);
    expect(await index.load()).toBeNull();
    expect(index.ended).toBe(true);
    expect(index.query({ field: "created_at", descending: true, limit: 20 })).toBeNull();
  });
});
