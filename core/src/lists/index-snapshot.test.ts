import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CollectionIndex, compareByCreated, type IndexEntry } from "./collection-index.js";
import { sortYielding } from "./sort-yielding.js";
import { bytesSource, decodeSnapshot, encodeSnapshot, openSnapshot } from "./index-snapshot.js";

const entry = (i: number): IndexEntry => ({ id: `e${String(i).padStart(5, "0")}`, created_at: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`, title: `naïve ✓ ${i}\nline`, price: i / 7, on: i % 2 === 0, note: null });

/** `text` with its header changed by `edit` and its header sum recomputed, as a writer of that header would make it. */
function reheader(text: string, edit: (header: Record<string, unknown>) => void): Buffer {
  const cut = text.indexOf("\n");
  const { sum: _sum, ...header } = JSON.parse(text.slice(0, cut)) as Record<string, unknown>;
  edit(header);
  const sum = createHash("sha256").update(JSON.stringify(header)).digest("hex").slice(0, 32);
  return Buffer.from(`${JSON.stringify({ ...header, sum })}${text.slice(cut)}`);
}

describe("index snapshots", () => {
  it("decode what they encode, across several slices, with any text in the fields", async () => {
    const entries = Array.from({ length: 4500 }, (_, i) => entry(i)).sort(compareByCreated);
    const text = (await encodeSnapshot("acct:a:items", "shape1", "tok", entries)).toString("utf8");
    const decoded = await decodeSnapshot(Buffer.from(text), "acct:a:items", "shape1");
    expect(decoded?.token).toBe("tok");
    expect(decoded?.index.entriesByCreated()).toEqual(entries);
    const empty = await encodeSnapshot("acct:a:items", "shape1", "tok", []);
    expect((await decodeSnapshot(Buffer.from(empty), "acct:a:items", "shape1"))?.index.size).toBe(0);
    // Taken at another token: refused without decoding.
    expect(await decodeSnapshot(Buffer.from(text), "acct:a:items", "shape1", "other")).toBeNull();
  });

  it("refuse another prefix or shape, entries out of order or repeated, and a changed or cut body", async () => {
    const entries = Array.from({ length: 3000 }, (_, i) => entry(i)).sort(compareByCreated);
    const text = (await encodeSnapshot("p", "s", "t", entries)).toString("utf8");
    expect(await decodeSnapshot(Buffer.from(text), "q", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(text), "p", "other")).toBeNull();
    const [header, ...blocks] = text.split("\n");
    expect(blocks).toHaveLength(3);
    expect(await decodeSnapshot(Buffer.from([header, blocks[1], blocks[0], blocks[2]].join("\n")), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from([header, ...blocks.slice(0, 2)].join("\n")), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(text.replace("e00003", "e00003x")), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(text.slice(0, -1)), "p", "s")).toBeNull();
    expect(await decodeSnapshot(Buffer.from(`${text}\n`), "p", "s")).toBeNull();
    // A snapshot of an earlier format (here with a header sum it would not have had) is not read.
    expect(await decodeSnapshot(reheader(text, (h) => (h.lp_index = 2)), "p", "s")).toBeNull();
    expect(await decodeSnapshot(reheader(text, () => {}), "p", "s")).not.toBeNull();
    // Well-formed bodies (checksums computed by the encoder) whose entries are out of order, within a block
    // or across blocks, or repeat an id.
    const swapped = [...entries];
    [swapped[5], swapped[6]] = [swapped[6]!, swapped[5]!];
    expect(await decodeSnapshot(Buffer.from(await encodeSnapshot("p", "s", "t", swapped)), "p", "s")).toBeNull();
    const across = [...entries.slice(1024, 2048), ...entries.slice(0, 1024)];
    expect(await decodeSnapshot(Buffer.from(await encodeSnapshot("p", "s", "t", across)), "p", "s")).toBeNull();
    const repeated = [...entries.slice(0, 1024), { ...entries[3]!, created_at: "2027-01-01T00:00:00.000Z" }];
    expect(await decodeSnapshot(Buffer.from(await encodeSnapshot("p", "s", "t", repeated)), "p", "s")).toBeNull();
    // A well-formed body whose checksum was recomputed but whose entry is not one.
    expect(await decodeSnapshot(Buffer.from(await encodeSnapshot("p", "s", "t", [{ id: 1, created_at: "x" } as unknown as IndexEntry])), "p", "s")).toBeNull();
    // Entries of different shapes are not persisted at all.
    await expect(encodeSnapshot("p", "s", "t", [entry(1), { id: "z", created_at: "z" }])).rejects.toThrow();
  });

  it("refuse a header edited without its sum", async () => {
    const entries = Array.from({ length: 1500 }, (_, i) => entry(i)).sort(compareByCreated);
    const text = (await encodeSnapshot("p", "s", "t", entries)).toString("utf8");
    expect(openSnapshot(bytesSource(Buffer.from(text)), "p", "s")?.count).toBe(1500);
    for (const edited of [text.replace('"token":"t"', '"token":"u"'), text.replace('"count":1500', '"count":1499')]) {
      expect(edited).not.toBe(text);
      expect(openSnapshot(bytesSource(Buffer.from(edited)), "p", "s")).toBeNull();
    }
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
