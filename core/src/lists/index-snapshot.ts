import { createHash } from "node:crypto";
import { CollectionIndex, compareByCreated, type IndexEntry } from "./collection-index.js";
import { pacer } from "./pacing.js";

/** Version of the snapshot text below; a snapshot of another version is rebuilt, never read. */
export const SNAPSHOT_FORMAT = 3;

/** Entries per block line of a snapshot (one `JSON.parse` each: a millisecond or two of work). */
const BLOCK = 1024;

/** A snapshot's bytes as a store is handed them: whole, or the pieces that make them, in order. */
export type SnapshotBytes = string | Buffer | readonly Buffer[];

/** {@link SnapshotBytes} as one buffer (for stores that keep a snapshot whole, and tests). */
export function snapshotBuffer(bytes: SnapshotBytes): Buffer {
  return typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.isBuffer(bytes) ? bytes : Buffer.concat(bytes as readonly Buffer[]);
}

export type { IndexSnapshotStore } from "./snapshot-store.js";

/** A decoded snapshot: its entries as an index (in `created_at` order) and the token they were valid at. */
export interface DecodedSnapshot {
  token: string;
  index: CollectionIndex<IndexEntry>;
}

/** A snapshot's header line. */
export interface Header {
  lp_index: number;
  prefix: string;
  shape: string;
  token: string;
  fields: string[];
  count: number;
  block: number;
  /** Each block line's length in bytes and the first 32 hex digits of its SHA-256, oldest block first. */
  sizes: number[];
  hashes: string[];
  /** The first 32 hex digits of the SHA-256 of the header's JSON without this field: an edited header is refused. */
  sum: string;
}

/** The bytes of a snapshot: its length, its first bytes (the header at least, when it is short) and any range. */
export interface SnapshotSource {
  length: number;
  head: Buffer;
  range(start: number, end: number): Promise<Buffer>;
}

/** A snapshot read whole into memory as a {@link SnapshotSource}. */
export function bytesSource(bytes: Buffer): SnapshotSource {
  return { length: bytes.length, head: bytes, range: async (start, end) => bytes.subarray(start, end) };
}

const blockHash = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex").slice(0, 32);

const NEWLINE = 0x0a;
const LINE_BREAK = Buffer.from([NEWLINE]);

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

/**
 * The bytes of a snapshot (format 3, UTF-8 text): one header line (format, prefix, entry shape, token, the
 * entries' field names, count, block size, each block's length and SHA-256, and a SHA-256
 * of the rest of the header), then one line per block of
 * {@link BLOCK} entries in `created_at` order: a JSON array holding one array of values per field (columns,
 * so no key and no bracket is repeated per entry, and one `JSON.parse` reads a block). Each block is checked
 * on its own, so the newest can be read and trusted first. Encoded in slices that yield, each block made
 * bytes as it is encoded: megabytes of text are never turned into bytes in one turn. Throws when the entries
 * do not all have the same fields (nothing is persisted then).
 */
export async function encodeSnapshot(prefix: string, shape: string, token: string, entries: readonly IndexEntry[]): Promise<Buffer> {
  return Buffer.concat(await encodeSnapshotParts(prefix, shape, token, entries));
}

/**
 * The bytes of {@link encodeSnapshot} as the pieces they are made of (the header, then a line break and a
 * block per block), never joined: a store writes them one after the other, so no turn of the event loop
 * copies the megabytes of a large index at once.
 */
export async function encodeSnapshotParts(prefix: string, shape: string, token: string, entries: readonly IndexEntry[]): Promise<Buffer[]> {
  const fields = entries.length > 0 ? Object.keys(entries[0]!) : ["id", "created_at"];
  const lines: Buffer[] = [];
  const sizes: number[] = [];
  const hashes: string[] = [];
  const pace = pacer();
  for (let i = 0; i < entries.length; i += BLOCK) {
    const block = entries.slice(i, i + BLOCK);
    const columns = fields.map((field) => block.map((entry) => (entry[field] === undefined ? fail() : entry[field])));
    for (const entry of block) if (Object.keys(entry).length !== fields.length) fail();
    const line = Buffer.from(JSON.stringify(columns), "utf8");
    lines.push(line);
    sizes.push(line.length);
    hashes.push(blockHash(line));
    await pace();
  }
  const body: Omit<Header, "sum"> = { lp_index: SNAPSHOT_FORMAT, prefix, shape, token, fields, count: entries.length, block: BLOCK, sizes, hashes };
  const header: Header = { ...body, sum: blockHash(JSON.stringify(body)) };
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header), "utf8")];
  for (const line of lines) parts.push(LINE_BREAK, line);
  if (lines.length === 0) parts.push(LINE_BREAK);
  return parts;
}

const fail = (): never => {
  throw new Error("index entries of different shapes");
};

const isValue = (value: unknown) => value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";

const isHeader = (value: unknown): value is Header => {
  const h = value as Header;
  if (typeof h !== "object" || h === null || typeof h.token !== "string" || typeof h.sum !== "string") return false;
  if (!Number.isSafeInteger(h.count) || h.count < 0 || !Array.isArray(h.fields) || h.fields.length > 64) return false;
  if (!Number.isSafeInteger(h.block) || h.block < 1 || h.block > 65_536) return false;
  const blocks = Math.ceil(h.count / h.block);
  if (!Array.isArray(h.sizes) || h.sizes.length !== blocks || !h.sizes.every((n) => Number.isSafeInteger(n) && n > 0)) return false;
  if (!Array.isArray(h.hashes) || h.hashes.length !== blocks || !h.hashes.every((x) => typeof x === "string")) return false;
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

/** A snapshot whose header was checked: its blocks, each checked when decoded ({@link decodeBlock}). */
export interface OpenedSnapshot {
  token: string;
  count: number;
  fields: string[];
  /** Entries per block (the last block may hold fewer). */
  block: number;
  source: SnapshotSource;
  /** Each block's line in the source: start and end offsets, oldest block first, and its hash. */
  lines: [number, number][];
  hashes: string[];
}

/**
 * Opens a snapshot of `prefix` with entries of `shape`: null when it is not one: another format (a snapshot
 * of format 1 is rebuilt, never misread), prefix or shape, a length that is not what its header's block
 * sizes add up to (a torn or edited file); or, when `token` is given, one taken at another token.
 */
export function openSnapshot(source: SnapshotSource, prefix: string, shape: string, token?: string): OpenedSnapshot | null {
  const cut = source.head.indexOf(NEWLINE);
  if (cut < 0) return null;
  let header: unknown;
  try {
    header = JSON.parse(source.head.toString("utf8", 0, cut));
  } catch {
    return null;
  }
  if (!isHeader(header) || header.lp_index !== SNAPSHOT_FORMAT || header.prefix !== prefix || header.shape !== shape) return null;
  // The header is not covered by the blocks' hashes: its own sum refuses one edited by hand or torn oddly.
  const { sum, ...rest } = header;
  if (sum !== blockHash(JSON.stringify(rest))) return null;
  if (token !== undefined && header.token !== token) return null;
  const lines: [number, number][] = [];
  let at = cut + 1;
  for (const size of header.sizes) {
    lines.push([at, at + size]);
    at += size + 1;
  }
  // The body is the blocks with one line break between each two: nothing more, nothing less.
  if (source.length !== (lines.length === 0 ? cut + 1 : at - 1)) return null;
  return { token: header.token, count: header.count, fields: header.fields, block: header.block, source, lines, hashes: header.hashes };
}

/**
 * The entries of block `n` of an opened snapshot, in `created_at` order, or null when the block is not
 * what its header says (other bytes than it hashed, columns of the wrong size, a value or entry that is
 * not one, entries out of order).
 */
export async function decodeBlock(snapshot: OpenedSnapshot, n: number): Promise<IndexEntry[] | null> {
  const [start, stop] = snapshot.lines[n]!;
  const bytes = await snapshot.source.range(start, stop);
  if (bytes.length !== stop - start || blockHash(bytes) !== snapshot.hashes[n]) return null;
  const size = Math.min(snapshot.block, snapshot.count - n * snapshot.block);
  try {
    const entries = blockEntries(bytes.toString("utf8"), snapshot.fields, size);
    if (!entries) return null;
    for (let i = 1; i < entries.length; i++) if (compareByCreated(entries[i - 1]!, entries[i]!) >= 0) return null;
    return entries;
  } catch {
    return null;
  }
}

/**
 * The blocks of an opened snapshot, newest first, each in `created_at` order (null for one that is not what
 * its header says): each block is fetched while the one before it is decoded (on Redis, a range read each).
 */
export async function* snapshotBlocks(snapshot: OpenedSnapshot): AsyncGenerator<IndexEntry[] | null> {
  let next = snapshot.lines.length > 0 ? decodeBlock(snapshot, snapshot.lines.length - 1) : null;
  for (let n = snapshot.lines.length - 1; n >= 0; n--) {
    const decoding = next!;
    next = n > 0 ? decodeBlock(snapshot, n - 1) : null;
    // Its failure (a read that failed) is seen when it is awaited, or not at all when decoding stops first.
    next?.catch(() => {});
    yield await decoding;
  }
}

/**
 * The index held by a snapshot of `prefix` with entries of `shape`, or null when it is not one (see
 * {@link openSnapshot}; also an entry that is not one, entries out of order or an id repeated). Decoded
 * block by block, oldest first, yielding to the event loop every few milliseconds.
 */
export async function decodeSnapshot(bytes: Buffer, prefix: string, shape: string, token?: string): Promise<DecodedSnapshot | null> {
  const snapshot = openSnapshot(bytesSource(bytes), prefix, shape, token);
  if (!snapshot) return null;
  const builder = CollectionIndex.inOrder<IndexEntry>();
  const pace = pacer();
  for (let n = 0; n < snapshot.lines.length; n++) {
    const entries = await decodeBlock(snapshot, n);
    if (!entries) return null;
    for (const entry of entries) if (!builder.add(entry)) return null;
    await pace();
  }
  return { token: snapshot.token, index: builder.done() };
}
