import type { Redis } from "ioredis";
import type { IndexSnapshotStore } from "../lists/index-snapshot.js";
import { redisCall } from "./redis-client.js";

/**
 * Persisted list indexes on Redis: one string per indexed prefix at `<prefix>ix:<indexed prefix>`, beside
 * the records, outside the record namespace (`<prefix>d:`), so listings, exports and `lp doctor` never see
 * them. A snapshot's token is a change feed position; the index registry applies the feed after it before
 * using it, and rebuilds when the feed no longer holds it.
 */
export function redisIndexSnapshots(client: Redis, prefix: string): IndexSnapshotStore {
  const keyOf = (indexed: string) => `${prefix}ix:${indexed}`;
  return {
    read: (indexed) => redisCall(() => client.getBuffer(keyOf(indexed))),
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
