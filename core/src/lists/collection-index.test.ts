import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CollectionIndex, type IndexEntry } from "./collection-index.js";

interface Entry extends IndexEntry {
  title: string;
  price: number | null;
}

const FIELDS = ["created_at", "title", "price"] as const;

const cmp = (a: unknown, b: unknown) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : (a as number) < (b as number) ? -1 : 1);
const reference = (entries: Entry[], field: string, descending: boolean) => {
  const sorted = [...entries].sort((a, b) => cmp(a[field], b[field]) || cmp(a.id, b.id));
  return (descending ? sorted.reverse() : sorted).map((e) => e.id);
};

const entryArb = fc.record({
  id: fc.stringMatching(/^[0-9a-f]{4}$/),
  created_at: fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z"),
  title: fc.constantFrom("a", "b", "c", "d"),
  price: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
});

/** Pages through the index from the start, running `between` after each page. */
function walk(index: CollectionIndex<Entry>, field: (typeof FIELDS)[number], descending: boolean, limit: number, between?: () => void) {
  const seen: string[] = [];
  let after: { value: string | number | null; id: string } | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const { items, hasMore } = index.query({ field, descending, after, limit });
    seen.push(...items.map((e) => e.id));
    if (!hasMore) return seen;
    const last = items[items.length - 1];
    after = { value: last[field], id: last.id };
    between?.();
  }
  throw new Error("no end");
}

describe("CollectionIndex", () => {
  it("pages through entries in sort order, each exactly once", () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 60 }), fc.constantFrom(...FIELDS), fc.boolean(), fc.integer({ min: 1, max: 9 }), (entries, field, desc, limit) => {
        const index = new CollectionIndex<Entry>();
        const byId = new Map<string, Entry>();
        for (const e of entries) {
          index.upsert(e);
          byId.set(e.id, e);
        }
        expect(index.size).toBe(byId.size);
        expect(walk(index, field, desc, limit)).toEqual(reference([...byId.values()], field, desc));
      }),
      { numRuns: 300 },
    );
  });

  it("visits every untouched entry once, in order, while others are inserted, updated and removed between pages", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(entryArb, { selector: (e) => e.id, minLength: 1, maxLength: 50 }),
        fc.array(fc.tuple(fc.constantFrom("upsert", "remove"), entryArb), { maxLength: 40 }),
        fc.constantFrom(...FIELDS),
        fc.boolean(),
        fc.integer({ min: 1, max: 7 }),
        (initial, changes, field, desc, limit) => {
          const index = new CollectionIndex<Entry>();
          for (const e of initial) index.upsert(e);
          const touched = new Set(changes.map(([, e]) => e.id));
          const stable = initial.filter((e) => !touched.has(e.id));
          let step = 0;
          const seen = walk(index, field, desc, limit, () => {
            for (const [op, e] of changes.slice(step, step + 3)) {
              if (op === "upsert") index.upsert(e);
              else index.remove(e.id);
            }
            step += 3;
          });
          // Untouched entries come once each, in order. A touched one may come twice: keyset pagination
          // lists an entry again when an update moves it past the cursor (the case below).
          const order = reference(stable, field, desc);
          expect(seen.filter((id) => order.includes(id))).toEqual(order);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("lists an entry again when an update between pages moves it past the cursor, as keyset pagination does", () => {
    const index = new CollectionIndex<Entry>();
    for (const id of ["bdbb", "000a", "0000", "c0a0"]) index.upsert({ id, created_at: "2026-01-01T00:00:00.000Z", title: "a", price: null });
    const seen = walk(index, "title", false, 3, () => index.upsert({ id: "bdbb", created_at: "2026-01-01T00:00:00.000Z", title: "d", price: null }));
    expect(seen).toEqual(["0000", "000a", "bdbb", "c0a0", "bdbb"]);
  });

  it("applies a filter and still reports whether more follow", () => {
    const index = new CollectionIndex<Entry>();
    for (let i = 0; i < 10; i++) index.upsert({ id: `id${i}`, created_at: `2026-01-0${i}T00:00:00.000Z`, title: i % 2 ? "odd" : "even", price: i });
    const odd = (e: Entry) => e.title === "odd";
    expect(index.query({ field: "price", descending: false, limit: 5, filter: odd })).toEqual({ items: expect.any(Array), hasMore: false });
    const page = index.query({ field: "price", descending: false, limit: 4, filter: odd });
    expect(page.items.map((e) => e.id)).toEqual(["id1", "id3", "id5", "id7"]);
    expect(page.hasMore).toBe(true);
    index.remove("id9");
    expect(index.query({ field: "price", descending: false, limit: 4, filter: odd }).hasMore).toBe(false);
    index.remove("missing");
    expect(index.get("id9")).toBeUndefined();
  });
});

describe("CollectionIndex, a new order of a large index", () => {
  const SIZE = 12_000;
  const entryAt = (i: number, title = `t${(i * 7919) % 1000}`): Entry => ({
    id: `id${String(i).padStart(6, "0")}`,
    created_at: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.${String(i % 1000).padStart(3, "0")}Z`,
    title,
    price: i % 13 === 0 ? null : (i * 31) % 500,
  });
  const fill = () => {
    const index = new CollectionIndex<Entry>();
    const byId = new Map<string, Entry>();
    for (let i = 0; i < SIZE; i++) {
      const e = entryAt(i);
      index.upsert(e);
      byId.set(e.id, e);
    }
    // As after a load: the created_at order is kept.
    index.query({ field: "created_at", descending: true, limit: 1 });
    return { index, byId };
  };
  /** Pages through `field` with page(), waiting on progress() whenever it answers null. */
  async function pages(index: CollectionIndex<Entry>, field: (typeof FIELDS)[number], descending: boolean, limit: number) {
    const seen: string[] = [];
    let after: { value: string | number | null; id: string } | undefined;
    for (;;) {
      let page = index.page({ field, descending, after, limit });
      while (!page) {
        await index.progress();
        page = index.page({ field, descending, after, limit });
      }
      seen.push(...page.items.map((e) => e.id));
      if (!page.hasMore) return seen;
      const last = page.items[page.items.length - 1]!;
      after = { value: last[field], id: last.id };
    }
  }

  it("is sorted in slices: other lists and the event loop run meanwhile, and its pages are a whole sort's", async () => {
    for (const field of ["title", "price"] as const) {
      const { index, byId } = fill();
      expect(index.page({ field, descending: false, limit: 20 })).toBeNull();
      // A list by created_at is answered at once while the order is sorted.
      expect(index.page({ field: "created_at", descending: true, limit: 20 })?.items).toHaveLength(20);
      let turned = false;
      setImmediate(() => (turned = true));
      await index.progress();
      expect(turned).toBe(true);
      for (const descending of [false, true]) expect(await pages(index, field, descending, 97)).toEqual(reference([...byId.values()], field, descending));
    }
  });

  it("takes in the writes made while it was sorted, and keeps every order current after", async () => {
    const { index, byId } = fill();
    expect(index.page({ field: "title", descending: false, limit: 20 })).toBeNull();
    const write = (i: number, title: string) => {
      const e = entryAt(i, title);
      index.upsert(e);
      byId.set(e.id, e);
    };
    const remove = (i: number) => {
      index.remove(entryAt(i).id);
      byId.delete(entryAt(i).id);
    };
    // Writes land between the slices of the sort: renames (one twice), removals, new entries, a removed one back.
    const done = index.progress();
    for (let round = 0; round < 6; round++) {
      write(round * 1000 + 5, `renamed ${round}`);
      write(5, `again ${round}`);
      remove(round * 1000 + 7);
      write(SIZE + round, `new ${round}`);
      if (round === 3) write(7, "back");
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    expect(await pages(index, "title", false, 50)).toEqual(reference([...byId.values()], "title", false));
    write(11, "aaa first");
    remove(12);
    expect(await pages(index, "title", true, 500)).toEqual(reference([...byId.values()], "title", true));
    expect(await pages(index, "created_at", true, 500)).toEqual(reference([...byId.values()], "created_at", true));
  });
});
