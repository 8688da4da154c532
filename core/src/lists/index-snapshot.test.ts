import { describe, expect, it } from "vitest";
import { CollectionIndex, compareByCreated, type IndexEntry } from "./collection-index.js";
import { sortYielding } from "./index-build.js";
import { decodeSnapshot, encodeSnapshot } from "./index-snapshot.js";

const entry = (i: number): IndexEntry => ({ id: `e${String(i).padStart(5, "0")}`, created_at: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`, title: `naïve ✓ ${i}\nline`, price: i / 7, on: i % 2 === 0, note: null });

describe("index snapshots", () => {
  it("decode what they encode, across several slices, with any text in the fields", async () => {
    const entries = Array.from({ length: 4500 }, (_, i) => entry(i)).sort(compareByCreated);
    const text = await encodeSnapshot("acct:a:items", "shape1", "tok", entries);
    expect(await decodeSnapshot(Buffer.from(text), "acct:a:items", "shape1")).toEqual({ token: "tok", entries });
    const empty = await encodeSnapshot("acct:a:items", "shape1", "tok", []);
    expect(await decodeSnapshot(Buffer.from(empty), "acct:a:items", "shape1")).toEqual({ token: "tok", entries: [] });
  });

  it("refuse another prefix or shape, entries out of order or repeated, and a changed or cut body", async () => {
    const entries = Array.from({ length: 30 }, (_, i) => entry(i)).sort(compareByCreated);
    const text = await encodeSnapshot("p", "s", "t", entries);
    expect(await decodeSnapshot(Buffer.from(text), "q", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(text), "p", "other")).toBeNull();
    const [header, ...lines] = text.split("\n");
    expect(await decodeSnapshot(Buffer.from([header, ...lines.slice(1), lines[0]].join("\n")), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from([header, lines[0], ...lines.slice(0, -1)].join("\n")), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(text.replace("e00003", "e00003x")), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(text.slice(0, -1)), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(`${text}\n`), "p", "s")).toBeNull();
    // A well-formed body whose checksum was recomputed but whose entry is not one.
    expect(await decodeSnapshot(Buffer.from(await encodeSnapshot("p", "s", "t", [{ id: 1, created_at: "x" } as unknown as IndexEntry])), "p", "s")).toBeNull();
    // Entries of different shapes are not persisted at all.
    await expect(encodeSnapshot("p", "s", "t", [entry(1), { id: "z", created_at: "z" }])).rejects.toThrow();
  });

  it("sortYielding sorts like Array.prototype.sort, and fromSorted refuses unsorted input", async () => {
    const shuffled = Array.from({ length: 20_000 }, (_, i) => entry((i * 7919) % 20_000));
    const sorted = await sortYielding(shuffled, compareByCreated);
    expect(sorted).toEqual([...shuffled].sort(compareByCreated));
    const index = (await CollectionIndex.fromSorted(sorted))!;
    expect(index.size).toBe(20_000);
    expect(index.query({ field: "created_at", descending: true, limit: 3 }).items).toEqual(sorted.slice(-3).reverse());
    expect(await CollectionIndex.fromSorted(shuffled)).toBeNull();
    expect(await CollectionIndex.fromSorted([sorted[0]!, sorted[0]!])).toBeNull();
  });
});
