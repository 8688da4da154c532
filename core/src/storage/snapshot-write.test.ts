import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeSnapshot, encodeSnapshot, encodeSnapshotParts } from "../lists/index-snapshot.js";
import { fsIndexSnapshots, INDEX_DIR } from "./fs-index-snapshots.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Entries enough for a snapshot of several hundred kilobytes (many blocks). */
const entries = Array.from({ length: 6000 }, (_, i) => ({
  id: `e${String(i).padStart(6, "0")}`,
  created_at: `2026-01-01T00:00:00.${String(i).padStart(6, "0")}Z`,
  title: `entry ${i} ✓ with some words to make the block longer`,
}));

describe("snapshots written in pieces", () => {
  it("are the bytes of the whole snapshot, on fs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-snapwrite-"));
    dirs.push(dir);
    const store = fsIndexSnapshots(dir);
    const parts = await encodeSnapshotParts("acct:a:items", "s", "t", entries);
    const whole = await encodeSnapshot("acct:a:items", "s", "t", entries);
    expect(parts.length).toBeGreaterThan(3);
    expect(whole.length).toBeGreaterThan(256 << 10);
    await store.write("acct:a:items", parts);
    const read = await store.read("acct:a:items");
    expect(read?.equals(whole)).toBe(true);
    expect((await decodeSnapshot(read!, "acct:a:items", "s"))?.index.entriesByCreated()).toEqual(entries);
    expect(readdirSync(join(dir, INDEX_DIR)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});
