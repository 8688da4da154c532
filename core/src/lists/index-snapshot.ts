import { createHash } from "node:crypto";
import { compareByCreated, type IndexEntry } from "./collection-index.js";

/** Version of the snapshot text below; a snapshot of another version is rebuilt, never read. */
export const SNAPSHOT_FORMAT = 1;

/** Entries encoded or decoded between two yields to the event loop (a few milliseconds of work). */
const SLICE = 2000;

/**
 * Where a store keeps the persisted list indexes: the text of one snapshot per storage prefix. Snapshots
 * are derived data: losing one costs a rebuild, never a record. Each is checked before it is used.
 */
export interface IndexSnapshotStore {
  /**
   * On a store without a change feed (fs): a token that changes whenever a record directly under `prefix`
   * is written or removed (the folder's modification time), and whether that last change is old enough
   * that a write made now could not leave the token as it is (timestamps are coarse).
   */
  stamp?(prefix: string): Promise<{ token: string; settled: boolean }>;
  /** With `stamp`: makes the token settled now (the folder's time is set into the past), once nothing writes. */
  seal?(prefix: string): Promise<void>;
  read(prefix: string): Promise<string | null>;
  write(prefix: string, text: string): Promise<void>;
  remove(prefix: string): Promise<void>;
  removeAll(): Promise<void>;
}

/** A decoded snapshot: the entries in `created_at` order and the token they were valid at. */
export interface DecodedSnapshot {
  token: string;
  entries: IndexEntry[];
}

interface Header {
  lp_index: number;
  prefix: string;
  shape: string;
  token: string;
  count: number;
  sha256: string;
}

const shapes = new WeakMap<object, string>();

/**
 * A fingerprint of the function that turns records into entries: a snapshot written by code whose entries
 * had other fields is not of this shape and is rebuilt.
 */
export function entryShape(toEntry: (record: never) => unknown): string {
  let shape = shapes.get(toEntry);
  if (!shape) {
    shape = createHash("sha256").update(toEntry.toString()).digest("hex").slice(0, 16);
    shapes.set(toEntry, shape);
  }
  return shape;
}

/** Lets the event loop run other work (requests, `/healthz`) between two slices of a long job. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The text of a snapshot: one header line (format, prefix, entry shape, token, count and the SHA-256 of
 * the body), then one JSON entry per line in `created_at` order. Encoded in slices that yield, so a large
 * index never holds the event loop.
 */
export async function encodeSnapshot(prefix: string, shape: string, token: string, entries: readonly IndexEntry[]): Promise<string> {
  const hash = createHash("sha256");
  const chunks: string[] = [];
  for (let i = 0; i < entries.length; i += SLICE) {
    const chunk = entries
      .slice(i, i + SLICE)
      .map((entry) => JSON.stringify(entry))
      .join("\n");
    if (i > 0) hash.update("\n");
    hash.update(chunk);
    chunks.push(chunk);
    await yieldToLoop();
  }
  const header: Header = { lp_index: SNAPSHOT_FORMAT, prefix, shape, token, count: entries.length, sha256: hash.digest("hex") };
  return `${JSON.stringify(header)}\n${chunks.join("\n")}`;
}

const isEntry = (value: unknown): value is IndexEntry => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const entry = value as Record<string, unknown>;
  if (typeof entry.id !== "string" || typeof entry.created_at !== "string") return false;
  for (const key in entry) {
    const field = entry[key];
    if (field !== null && typeof field !== "string" && typeof field !== "number" && typeof field !== "boolean") return false;
  }
  return true;
};

/**
 * The entries of a snapshot of `prefix` with entries of `shape`, or null when it is not one: another
 * format, prefix or shape, a body whose checksum or count does not match (a torn or edited file), an
 * entry that is not one, or entries out of order. Decoded in slices that yield.
 */
export async function decodeSnapshot(text: string, prefix: string, shape: string): Promise<DecodedSnapshot | null> {
  const cut = text.indexOf("\n");
  if (cut < 0) return null;
  let header: Header;
  try {
    header = JSON.parse(text.slice(0, cut)) as Header;
  } catch {
    return null;
  }
  if (typeof header !== "object" || header === null) return null;
  if (header.lp_index !== SNAPSHOT_FORMAT || header.prefix !== prefix || header.shape !== shape) return null;
  if (typeof header.token !== "string" || !Number.isSafeInteger(header.count) || header.count < 0) return null;
  const hash = createHash("sha256");
  const entries: IndexEntry[] = [];
  let at = cut + 1;
  while (header.count > 0 && at <= text.length) {
    // Slices end at a line break, so hashing them one after the other hashes the whole body.
    let end = at - 1;
    for (let n = 0; n < SLICE; n++) {
      end = text.indexOf("\n", end + 1);
      if (end === -1) break;
    }
    const stop = end === -1 ? text.length : end;
    const slice = text.slice(at, stop);
    if (at > cut + 1) hash.update("\n");
    hash.update(slice);
    try {
      for (const line of slice.split("\n")) {
        const entry: unknown = JSON.parse(line);
        if (!isEntry(entry)) return null;
        const last = entries.at(-1);
        if (last && compareByCreated(last, entry) >= 0) return null;
        entries.push(entry);
      }
    } catch {
      return null;
    }
    if (entries.length > header.count) return null;
    at = stop + 1;
    await yieldToLoop();
  }
  if (entries.length !== header.count) return null;
  if (header.count === 0 ? cut + 1 !== text.length : hash.digest("hex") !== header.sha256) return null;
  return { token: header.token, entries };
}
