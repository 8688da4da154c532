import { sql } from "kysely";
import type { Database } from "../db/database.js";
import type { Clock } from "../deps.js";
import type { RateWindows } from "./rate-windows.js";

/** {@link RateWindows} kept in the database, with the sweep of ended windows. */
export interface DatabaseRateWindows extends RateWindows {
  /** Deletes the windows ended by now, in one statement over their end's index; answers how many. */
  sweep(): Promise<number>;
}

/**
 * Rate windows in the `rate_windows` table (migration 0008), for processes sharing a PostgreSQL database: the
 * limit is the service's, not each process's. A hit is one upsert on the key: a new key opens a window at 1, a
 * key whose window ended at `now` opens a new one at 1, any other adds one; `RETURNING` gives the count this
 * hit made. On PostgreSQL hits of one key at once serialise on its row, so each gets its own count and none is
 * lost. Times come from `clock` (the core's).
 */
export function createDatabaseRateWindows(database: Database, clock: Clock): DatabaseRateWindows {
  return {
    async hit(key, windowMs) {
      const at = clock.now();
      const now = at.toISOString();
      const ends = new Date(at.getTime() + windowMs).toISOString();
      // Every SET reads the row as it was before this hit, so the three agree on whether its window ended.
      const ended = sql<boolean>`rate_windows.ends_at <= ${now}`;
      const row = await database.db
        .insertInto("rate_windows")
        .values({ key, count: 1, started_at: now, ends_at: ends })
        .onConflict((oc) =>
          oc.column("key").doUpdateSet({
            count: sql<number>`case when ${ended} then 1 else rate_windows.count + 1 end`,
            started_at: sql<string>`case when ${ended} then ${now} else rate_windows.started_at end`,
            ends_at: sql<string>`case when ${ended} then ${ends} else rate_windows.ends_at end`,
          }),
        )
        .returning(["count", "ends_at"])
        .executeTakeFirstOrThrow();
      return { count: Number(row.count), resetInMs: Date.parse(row.ends_at) - at.getTime() };
    },
    async sweep() {
      const result = await database.db.deleteFrom("rate_windows").where("ends_at", "<=", clock.now().toISOString()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
