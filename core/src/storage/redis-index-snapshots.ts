import type { Redis } from "ioredis";
import type { IndexSnapshotStore, SnapshotSource } from "../lists/index-snapshot.js";
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
    write: (indexed, text) => redisCall(async () => void (await client.set(keyOf(indexed), text))),
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
