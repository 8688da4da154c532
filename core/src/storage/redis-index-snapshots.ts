import type { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { snapshotBuffer, type IndexSnapshotStore, type SnapshotBytes, type SnapshotSource } from "../lists/index-snapshot.js";
import { redisCall } from "./redis-client.js";

/** Bytes read per GETRANGE: a snapshot of several megabytes never arrives as one reply that holds the loop. */
const CHUNK = 256 << 10;

/**
 * The bytes of `key` read in {@link CHUNK}-sized ranges one after the other, or null when there is no such
 * key: a snapshot of several megabytes never arrives as one reply (nor as a burst of them) that holds the
 * loop while it is parsed. A write landing between two ranges gives bytes of two snapshots: their checksum
 * does not match, so the index is rebuilt.
 */
async function readChunked(client: Redis, key: string): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  for (let at = 0; ; at += CHUNK) {
    const chunk = await client.getrangeBuffer(key, at, at + CHUNK - 1);
    if (chunk.length > 0) chunks.push(chunk);
    if (chunk.length < CHUNK) break;
  }
  if (chunks.length === 0 && (await client.exists(key)) === 0) return null;
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Bytes read first when a snapshot is opened: its header, which names every block's place and hash. */
const HEAD = 64 << 10;
/** A header longer than this is not one lp wrote (a million entries take about 50 kB). */
const HEAD_MAX = 1 << 20;

/**
 * The snapshot at `key` for reading in ranges (GETRANGE), newest blocks first, or null when there is none.
 * Each block is checked against its hash in the header when read, so a snapshot written in between makes
 * the restore fail (and the index be rebuilt) unless the blocks read are byte for byte the same.
 */
async function openRanged(client: Redis, key: string): Promise<SnapshotSource | null> {
  const length = await client.strlen(key);
  if (length === 0) return null;
  let head = await client.getrangeBuffer(key, 0, HEAD - 1);
  if (!head.includes(0x0a) && head.length < length) head = await client.getrangeBuffer(key, 0, Math.min(length, HEAD_MAX) - 1);
  return { length, head, range: (start, end) => client.getrangeBuffer(key, start, end - 1) };
}

/** Bytes sent per command when a snapshot is written: a large one is never one command built in one turn. */
const WRITE_PIECE = 256 << 10;
/** How long a snapshot being written may be left behind by a process that died while writing it. */
const STAGING_TTL_S = 600;

/** `pieces` joined into buffers of about {@link WRITE_PIECE} bytes (none split), one at a time as asked for. */
function* regroup(pieces: readonly Buffer[]): Generator<Buffer> {
  let group: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    group.push(piece);
    size += piece.length;
    if (size < WRITE_PIECE) continue;
    yield Buffer.concat(group);
    group = [];
    size = 0;
  }
  if (group.length > 0) yield Buffer.concat(group);
}

/**
 * Writes `bytes` at `key`: in one SET when small; otherwise into a staging key (SET, then APPENDs of about
 * {@link WRITE_PIECE} bytes, each joined only when sent) renamed over `key` at the end, with its expiry
 * removed in the same transaction. Readers see the old snapshot or the new one, never part of one, and a
 * process that dies mid-way leaves a staging key that expires.
 */
async function writeStaged(client: Redis, key: string, bytes: SnapshotBytes): Promise<void> {
  const whole = typeof bytes === "string" || Buffer.isBuffer(bytes) ? snapshotBuffer(bytes) : null;
  const pieces = whole ? [whole] : (bytes as readonly Buffer[]);
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  if (total <= WRITE_PIECE) return void (await client.set(key, whole ?? Buffer.concat(pieces)));
  const staging = `${key}~${randomUUID()}`;
  let first = true;
  for (const piece of whole ? [whole] : regroup(pieces)) {
    if (first) await client.set(staging, piece, "EX", STAGING_TTL_S);
    else await client.append(staging, piece);
    first = false;
  }
  const done = await client.multi().rename(staging, key).persist(key).exec();
  for (const [error] of done ?? []) if (error) throw error;
}

/**
 * Persisted list indexes on Redis: one string per indexed prefix at `<prefix>ix:<indexed prefix>`, beside
 * the records, outside the record namespace (`<prefix>d:`), so listings, exports and `lp doctor` never see
 * them, read back block by block (newest first) or in ranges of 256 kB. A snapshot's token is a change feed position; the index registry applies the feed after it before
 * using it, and rebuilds when the feed no longer holds it.
 */
export function redisIndexSnapshots(client: Redis, prefix: string): IndexSnapshotStore {
  const keyOf = (indexed: string) => `${prefix}ix:${indexed}`;
  return {
    read: (indexed) => redisCall(() => readChunked(client, keyOf(indexed))),
    open: (indexed) =>
      redisCall(async () => {
        const source = await openRanged(client, keyOf(indexed));
        return source && { ...source, range: (start, end) => redisCall(() => source.range(start, end)) };
      }),
    write: (indexed, bytes) => redisCall(() => writeStaged(client, keyOf(indexed), bytes)),
    remove: (indexed) => redisCall(async () => void (await client.del(keyOf(indexed)))),
    removeAll: () =>
      redisCall(async () => {
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}ix:*`, "COUNT", 1000);
          if (keys.length > 0) await client.del(...keys);
          cursor = next;
        } while (cursor !== "0");
      }),
  };
}
