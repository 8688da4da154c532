import type { Redis } from "ioredis";
import type { ChangeFeed, RecordChange } from "./create-storage.js";
import { redisCall } from "./redis-client.js";

const ZERO = "0-0";
const MAX_READ = 10_000;

/** Stream ids `ms-seq` compared as numbers. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as = "0"] = a.split("-");
  const [bm, bs = "0"] = b.split("-");
  const ms = BigInt(am!) - BigInt(bm!);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}

const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The fields of an XINFO STREAM reply, flat [name, value, ...], as a map. */
function toInfo(reply: unknown): Map<string, unknown> {
  const info = new Map<string, unknown>();
  const flat = reply as unknown[];
  for (let i = 0; i + 1 < flat.length; i += 2) info.set(String(flat[i]), flat[i + 1]);
  return info;
}

/**
 * The change feed of a Redis store: the stream every write appends to in its own atomic script run (field `k` the
 * key, `v` the stored text, or `d` for a removal), trimmed to about {@link FEED_MAXLEN} entries. A cursor
 * is a stream id; reading is XRANGE after it (exclusive). `gap` is set when the stream was trimmed and the
 * cursor is older than its first entry: entries the reader never saw are gone.
 */
export function redisChangeFeed(client: Redis, stream: string): ChangeFeed {
  return {
    head: () =>
      redisCall(async () => {
        const reply = await client.xinfo("STREAM", stream).catch((error: Error) => {
          if (/no such key/i.test(error.message)) return null;
          throw error;
        });
        if (!reply) return ZERO;
        return String(toInfo(reply).get("last-generated-id") ?? ZERO);
      }),
    has: (cursor) =>
      redisCall(async () => {
        if (!STREAM_ID.test(cursor) || cursor === ZERO) return false;
        const range = await client.xrange(stream, cursor, cursor, "COUNT", 1);
        return range.length === 1;
      }),
    read: (cursor, limit = 1_000) =>
      redisCall(async () => {
        if (!STREAM_ID.test(cursor)) throw new Error(`Invalid change feed cursor: ${JSON.stringify(cursor)}`);
        const count = Math.max(1, Math.min(MAX_READ, Math.floor(limit)));
        // One round trip, and no MULTI: Redis at maxmemory refuses every command queued in a transaction, and
        // reading the feed must go on while writes are refused. The entries are read before the stream's
        // state, so a trim in between can only make the gap check see a newer first entry: a reload, never a
        // missed change.
        const results = await client.pipeline().xrange(stream, `(${cursor}`, "+", "COUNT", count).xinfo("STREAM", stream).exec();
        if (!results) throw new Error("Redis pipeline was aborted");
        const [[rangeError, range], [infoError, infoReply]] = results as [Error | null, unknown][];
        // A pipeline answers each command's error in place: an unreachable Redis must fail the read, not look
        // like a feed with nothing new (lists would then answer from what this process last knew). XINFO on a
        // stream nobody has written yet answers "no such key": that alone means nothing new.
        if (rangeError) throw rangeError;
        if (infoError && /no such key/i.test(infoError.message)) return { cursor, changes: [], gap: false };
        if (infoError) throw infoError;
        const info = toInfo(infoReply);
        const entries = range as [string, string[]][];
        const length = Number(info.get("length") ?? 0);
        const added = Number(info.get("entries-added") ?? length);
        const first = info.get("first-entry") as [string, string[]] | null;
        const trimmed = added > length;
        const gap = trimmed && (first === null ? compareStreamIds(cursor, String(info.get("last-generated-id"))) < 0 : compareStreamIds(cursor, first[0]) < 0);
        const changes: RecordChange[] = entries.map(([, fields]) => {
          const map = new Map<string, string>();
          for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
          return { key: map.get("k") ?? "", value: map.has("d") ? null : parseValue(map.get("v") ?? "null") };
        });
        const last = entries.at(-1);
        return { cursor: last ? last[0] : gap ? String(info.get("last-generated-id")) : cursor, changes: gap ? [] : changes, gap };
      }),
  };
}
