import { createHash } from "node:crypto";
import { CollectionIndex, compareByCreated, type IndexEntry } from "./collection-index.js";

/** Version of the snapshot text below; a snapshot of another version is rebuilt, never read. */
export const SNAPSHOT_FORMAT = 2;

/** Entries per block line of a snapshot (one `JSON.parse` each: a millisecond or two of work). */
const BLOCK = 1024;

/** Bytes hashed between two yields while a snapshot's checksum is checked. */
const HASH_STEP = 1 << 20;

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

/** A decoded snapshot: its entries as an index (in `created_at` order) and the token they were valid at. */
export interface DecodedSnapshot {
  token: string;
  index: CollectionIndex<IndexEntry>;
}

export interface Header {
  lp_index: number;
  prefix: string;
  shape: string;
  token: string;
  fields: string[];
  count: number;
  block: number;
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

/** Time the event loop is held at most, give or take one block, by encoding or decoding before it yields. */
const BUDGET_MS = 8;

/** A yield to the event loop when the work since the last one has taken {@link BUDGET_MS} or more. */
export function pacer(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < BUDGET_MS) return;
    await yieldToLoop();
    since = performance.now();
  };
}

/**
 * The text of a snapshot (format 2): one header line (format, prefix, entry shape, token, the entries' field
 * names, count, block size and the SHA-256 of the body), then one line per block of {@link BLOCK} entries in
 * `created_at` order: a JSON array holding one array of values per field (columns, so no key and no bracket
 * is repeated per entry, and one `JSON.parse` reads a block). Encoded in slices that yield, so a large index
 * never holds the event loop. Throws when the entries do not all have the same fields (nothing is persisted).
 */
export async function encodeSnapshot(prefix: string, shape: string, token: string, entries: readonly IndexEntry[]): Promise<string> {
  const fields = entries.length > 0 ? Object.keys(entries[0]!) : ["id", "created_at"];
  const hash = createHash("sha256");
  const lines: string[] = [];
  const pace = pacer();
  for (let i = 0; i < entries.length; i += BLOCK) {
    const block = entries.slice(i, i + BLOCK);
    const columns = fields.map((field) => block.map((entry) => (entry[field] === undefined ? fail() : entry[field])));
    for (const entry of block) if (Object.keys(entry).length !== fields.length) fail();
    const line = JSON.stringify(columns);
    if (i > 0) hash.update("\n");
    hash.update(line);
    lines.push(line);
    await pace();
  }
  const header: Header = { lp_index: SNAPSHOT_FORMAT, prefix, shape, token, fields, count: entries.length, block: BLOCK, sha256: hash.digest("hex") };
  return lines.length > 0 ? `${JSON.stringify(header)}\n${lines.join("\n")}` : `${JSON.stringify(header)}\n`;
}

const fail = (): never => {
  throw new Error("index entries of different shapes");
};

const isValue = (value: unknown) => value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";

const isHeader = (value: unknown): value is Header => {
  const h = value as Header;
  if (typeof h !== "object" || h === null || typeof h.token !== "string" || typeof h.sha256 !== "string") return false;
  if (!Number.isSafeInteger(h.count) || h.count < 0 || !Array.isArray(h.fields) || h.fields.length > 64) return false;
  if (!Number.isSafeInteger(h.block) || h.block < 1 || h.block > 65_536) return false;
  return h.fields.every((f) => typeof f === "string") && new Set(h.fields).size === h.fields.length && h.fields.includes("id") && h.fields.includes("created_at");
};

/** The entries of one block line, or null when it is not `fields.length` columns of `size` values each. */
function blockEntries(line: string, fields: string[], size: number): IndexEntry[] | null {
  const columns: unknown = JSON.parse(line);
  if (!Array.isArray(columns) || columns.length !== fields.length) return null;
  for (const column of columns) if (!Array.isArray(column) || column.length !== size || !column.every(isValue)) return null;
  const entries: IndexEntry[] = new Array(size);
  const width = fields.length;
  for (let i = 0; i < size; i++) {
    const entry: Record<string, unknown> = {};
    for (let k = 0; k < width; k++) entry[fields[k]!] = (columns[k] as unknown[])[i];
    if (typeof entry.id !== "string" || typeof entry.created_at !== "string") return null;
    entries[i] = entry as IndexEntry;
  }
  return entries;
}

/** A snapshot whose header and checksum were checked: its blocks, still to be decoded ({@link decodeBlock}). */
export interface OpenedSnapshot {
  token: string;
  count: number;
  fields: string[];
  /** Entries per block (the last block may hold fewer). */
  block: number;
  bytes: Buffer;
  /** Each block's line in `bytes`: start and end offsets, oldest block first. */
  lines: [number, number][];
}

/** The header of a snapshot of `prefix` with entries of `shape` (and `token`, when given), or null. */
export function snapshotHeader(bytes: Buffer, prefix: string, shape: string, token?: string): Header | null {
  const cut = bytes.indexOf(NEWLINE);
  if (cut < 0) return null;
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString("utf8", 0, cut));
  } catch {
    return null;
  }
  if (!isHeader(header) || header.lp_index !== SNAPSHOT_FORMAT || header.prefix !== prefix || header.shape !== shape) return null;
  return token !== undefined && header.token !== token ? null : header;
}

/**
 * Checks a snapshot of `prefix` with entries of `shape` before any entry is trusted: null when it is not
 * one: another format (a snapshot of format 1 is rebuilt, never misread), prefix or shape, a body whose
 * checksum or number of blocks does not match (a torn or edited file); or, when `token` is given, one taken
 * at another token. The checksum is computed a megabyte at a time, yielding between.
 */
export async function openSnapshot(bytes: Buffer, prefix: string, shape: string, token?: string): Promise<OpenedSnapshot | null> {
  const header = snapshotHeader(bytes, prefix, shape, token);
  if (!header) return null;
  const { fields, count, block } = header;
  const body = bytes.indexOf(NEWLINE) + 1;
  if (count === 0) return body === bytes.length ? { token: header.token, count, fields, block, bytes, lines: [] } : null;
  const hash = createHash("sha256");
  for (let at = body; at < bytes.length; at += HASH_STEP) {
    hash.update(bytes.subarray(at, Math.min(at + HASH_STEP, bytes.length)));
    if (at + HASH_STEP < bytes.length) await yieldToLoop();
  }
  if (hash.digest("hex") !== header.sha256) return null;
  const lines: [number, number][] = [];
  for (let at = body; at <= bytes.length; ) {
    const end = bytes.indexOf(NEWLINE, at);
    const stop = end === -1 ? bytes.length : end;
    lines.push([at, stop]);
    at = stop + 1;
  }
  if (lines.length !== Math.ceil(count / block)) return null;
  return { token: header.token, count, fields, block, bytes, lines };
}

/**
 * The entries of block `n` of an opened snapshot, in `created_at` order, or null when the block is not
 * what its header says (columns of the wrong size, a value or entry that is not one, entries out of order).
 */
export function decodeBlock(snapshot: OpenedSnapshot, n: number): IndexEntry[] | null {
  const [start, stop] = snapshot.lines[n]!;
  const size = Math.min(snapshot.block, snapshot.count - n * snapshot.block);
  try {
    const entries = blockEntries(snapshot.bytes.toString("utf8", start, stop), snapshot.fields, size);
    if (!entries) return null;
    for (let i = 1; i < entries.length; i++) if (compareByCreated(entries[i - 1]!, entries[i]!) >= 0) return null;
    return entries;
  } catch {
    return null;
  }
}

/**
 * The index held by a snapshot of `prefix` with entries of `shape`, or null when it is not one (see
 * {@link openSnapshot}; also an entry that is not one, entries out of order or an id repeated). Decoded
 * block by block, oldest first, yielding to the event loop every few milliseconds.
 */
export async function decodeSnapshot(bytes: Buffer, prefix: string, shape: string, token?: string): Promise<DecodedSnapshot | null> {
  const snapshot = await openSnapshot(bytes, prefix, shape, token);
  if (!snapshot) return null;
  const builder = CollectionIndex.inOrder<IndexEntry>();
  const pace = pacer();
  for (let n = 0; n < snapshot.lines.length; n++) {
    const entries = decodeBlock(snapshot, n);
    if (!entries) return null;
    for (const entry of entries) if (!builder.add(entry)) return null;
    await pace();
  }
  return { token: snapshot.token, index: builder.done() };
}
