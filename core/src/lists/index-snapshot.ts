import { createHash } from "node:crypto";
import { compareByCreated, type IndexEntry } from "./collection-index.js";

/** Version of the snapshot text below; a snapshot of another version is rebuilt, never read. */
export const SNAPSHOT_FORMAT = 1;

/** Entries encoded or decoded between two yields to the event loop (a few milliseconds of work). */
const SLICE = 1000;

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
  read(prefix: string): Promise<Buffer | null>;
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
  fields: string[];
  count: number;
  sha256: string;
}

const NEWLINE = 0x0a;

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
 * The text of a snapshot: one header line (format, prefix, entry shape, token, the entries' field names,
 * count and the SHA-256 of the body), then one JSON array of field values per entry, in `created_at` order.
 * Encoded in slices that yield, so a large index never holds the event loop. Throws when the entries do not
 * all have the same fields (nothing is persisted then).
 */
export async function encodeSnapshot(prefix: string, shape: string, token: string, entries: readonly IndexEntry[]): Promise<string> {
  const fields = entries.length > 0 ? Object.keys(entries[0]!) : ["id", "created_at"];
  const hash = createHash("sha256");
  const chunks: string[] = [];
  for (let i = 0; i < entries.length; i += SLICE) {
    const lines: string[] = [];
    for (const entry of entries.slice(i, i + SLICE)) {
      if (Object.keys(entry).length !== fields.length) throw new Error("index entries of different shapes");
      lines.push(JSON.stringify(fields.map((field) => (entry[field] === undefined ? fail() : entry[field]))));
    }
    const chunk = lines.join("\n");
    if (i > 0) hash.update("\n");
    hash.update(chunk);
    chunks.push(chunk);
    await yieldToLoop();
  }
  const header: Header = { lp_index: SNAPSHOT_FORMAT, prefix, shape, token, fields, count: entries.length, sha256: hash.digest("hex") };
  return `${JSON.stringify(header)}\n${chunks.join("\n")}`;
}

const fail = (): never => {
  throw new Error("index entries of different shapes");
};

const isValue = (value: unknown) => value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";

const isHeader = (value: unknown): value is Header => {
  const h = value as Header;
  if (typeof h !== "object" || h === null || typeof h.token !== "string" || typeof h.sha256 !== "string") return false;
  if (!Number.isSafeInteger(h.count) || h.count < 0 || !Array.isArray(h.fields) || h.fields.length > 64) return false;
  return h.fields.every((f) => typeof f === "string") && new Set(h.fields).size === h.fields.length && h.fields.includes("id") && h.fields.includes("created_at");
};

/**
 * The entries of a snapshot of `prefix` with entries of `shape`, or null when it is not one: another
 * format, prefix or shape, a body whose checksum or count does not match (a torn or edited file), an
 * entry that is not one, or entries out of order. Decoded from the bytes in slices that yield (no slice
 * turns more than a few thousand lines into text at once).
 */
export async function decodeSnapshot(bytes: Buffer, prefix: string, shape: string): Promise<DecodedSnapshot | null> {
  const cut = bytes.indexOf(NEWLINE);
  if (cut < 0) return null;
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString("utf8", 0, cut));
  } catch {
    return null;
  }
  if (!isHeader(header) || header.lp_index !== SNAPSHOT_FORMAT || header.prefix !== prefix || header.shape !== shape) return null;
  const { fields, count } = header;
  const hash = createHash("sha256");
  const entries: IndexEntry[] = [];
  let at = cut + 1;
  while (count > 0 && at < bytes.length) {
    let end = at - 1;
    for (let n = 0; n < SLICE; n++) {
      end = bytes.indexOf(NEWLINE, end + 1);
      if (end === -1) break;
    }
    const stop = end === -1 ? bytes.length : end;
    // Each slice is hashed with the line break after it: together, every byte of the body.
    hash.update(bytes.subarray(at, Math.min(stop + 1, bytes.length)));
    try {
      for (const line of bytes.toString("utf8", at, stop).split("\n")) {
        const values: unknown = JSON.parse(line);
        if (!Array.isArray(values) || values.length !== fields.length || !values.every(isValue)) return null;
        const entry: Record<string, unknown> = {};
        for (let k = 0; k < fields.length; k++) entry[fields[k]!] = values[k];
        if (typeof entry.id !== "string" || typeof entry.created_at !== "string") return null;
        const last = entries.at(-1);
        if (last && compareByCreated(last, entry as IndexEntry) >= 0) return null;
        entries.push(entry as IndexEntry);
      }
    } catch {
      return null;
    }
    if (entries.length > count) return null;
    at = stop + 1;
    await yieldToLoop();
  }
  if (entries.length !== count) return null;
  if (count === 0 ? cut + 1 !== bytes.length : hash.digest("hex") !== header.sha256) return null;
  return { token: header.token, entries };
}
