import { normalizeKey } from "unstorage";
import type { BatchFence, BatchOp, Stores } from "./create-storage.js";
import { toStorage } from "./create-storage.js";
import { createRedisClient, redactRedisUrl, redisCall } from "./redis-client.js";
import { redisDriver } from "./redis-driver.js";
import { redisRecordClaims } from "./redis-claim.js";
import { redisChangeFeed } from "./redis-feed.js";
import { redisIndexSnapshots } from "./redis-index-snapshots.js";
import { fencedWriteOps } from "./redis-fenced-batch.js";
import { checkKey, toStoredText } from "./keys.js";
import { redisLayout, writeOps, type WriteOp } from "./redis-keys.js";

/** Options of a Redis store (`lp serve --storage redis`). */
export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port/db`. */
  url: string;
  /** Put before every key lp writes (default `lp:`), so several services can share one Redis database. */
  prefix?: string;
  /** About how many entries the change feed keeps (default 100000); small values are for tests of trimming. */
  feedMaxLength?: number;
  /** Where outages are reported; default stderr. */
  log?: (line: string) => void;
}

/** The default key prefix of a Redis store. */
export const DEFAULT_REDIS_PREFIX = "lp:";

const PREFIX = /^[A-Za-z0-9_.:-]{0,64}$/;

/**
 * Records and media on one Redis, shared by every process that opens the same URL and prefix: records
 * under `<prefix>d:`, media bytes under `<prefix>m:`, the change feed in `<prefix>changes`. A batch is one
 * script run, atomic like MULTI/EXEC, in one round trip. Media go through their own
 * connection so a large image never delays a record read.
 */
export function createRedisStores(options: RedisStoreOptions): Stores {
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  if (!PREFIX.test(prefix)) throw new Error(`Invalid Redis key prefix ${JSON.stringify(prefix)}: letters, digits, _ . : - only, at most 64`);
  const dataClient = createRedisClient(options.url, { name: "data", log: options.log });
  const mediaClient = createRedisClient(options.url, { name: "media", log: options.log });
  const dataLayout = redisLayout(prefix, "d", true, options.feedMaxLength);
  const data = toStorage(redisDriver({ client: dataClient, layout: dataLayout }));
  const media = toStorage(redisDriver({ client: mediaClient, layout: redisLayout(prefix, "m", false) }));
  let disposed = false;
  return {
    kind: "redis",
    data,
    media,
    async batch(ops: readonly BatchOp[], fence?: BatchFence) {
      if (ops.length === 0) return;
      const writes: WriteOp[] = ops.map((op) => {
        const key = checkKey(normalizeKey(op.key));
        return "remove" in op ? { op: "remove", key } : { op: "set", key, value: toStoredText(op.value) };
      });
      if (fence) return fencedWriteOps(dataClient, dataLayout, writes, fence);
      await redisCall(() => writeOps(dataClient, dataLayout, writes));
    },
    changes: redisChangeFeed(dataClient, dataLayout.feed!),
    indexSnapshots: redisIndexSnapshots(dataClient, prefix),
    /**
     * New media first (new paths are unused until records name them), then every record in one batch
     * (one script: atomic, so no process ever sees a mix), then the media no record names any more.
     */
    async replace(records: Record<string, unknown>, files: Record<string, string>) {
      const oldMedia = await media.getKeys();
      for (const [key, value] of Object.entries(files)) await media.setItemRaw(key, Buffer.from(value, "base64"));
      const stale = (await data.getKeys()).filter((key) => !key.startsWith("meta:") && !Object.hasOwn(records, key));
      await this.batch([...stale.map((key) => ({ key, remove: true as const })), ...Object.entries(records).map(([key, value]) => ({ key, value }))]);
      for (const key of oldMedia) if (!Object.hasOwn(files, key)) await media.removeItem(key);
    },
    claims: redisRecordClaims(dataClient, dataLayout),
    redis: { url: options.url, prefix },
    where: `${redactRedisUrl(options.url)} (prefix ${prefix})`,
    describeKey: (key: string) => `Redis key ${dataLayout.records}${key}`,
    format: {
      where: `Redis key ${prefix}meta:format`,
      read: () => redisCall(() => dataClient.get(`${prefix}meta:format`)),
      write: (text: string) => redisCall(async () => void (await dataClient.set(`${prefix}meta:format`, text))),
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await Promise.all([data.dispose(), media.dispose()]);
      // QUIT when connected (pending replies arrive first); a client that is down just stops retrying.
      await Promise.all([dataClient, mediaClient].map((client) => (client.status === "ready" ? client.quit().catch(() => client.disconnect()) : client.disconnect())));
    },
  };
}
