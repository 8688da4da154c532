import type { Clock, Database } from "@lp/core";
import type { ExpiringKeys } from "./expiring-keys.js";

/**
 * {@link ExpiringKeys} in the `dashboard_keys` table (migration 0008), for processes sharing a PostgreSQL
 * database: a login token minted by one process opens a session on any other, and the session is accepted by
 * every process until it expires or is logged out. Each call is one statement: `take` is one
 * `DELETE ... RETURNING`, so of several requests redeeming a token at once, on any processes, one gets it. A
 * row past its expiry is never read; each `put` (a login minted, a session opened: a few a day) first deletes
 * them. Times come from `clock`. The rows outlive a process: a restart ends no session.
 */
export function createDatabaseKeys(database: Database, clock: Clock): ExpiringKeys {
  const now = () => clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    async put(key, value, ttlMs) {
      const at = now();
      await database.db.deleteFrom("dashboard_keys").where("expires_at", "<=", iso(at)).execute();
      const expires_at = iso(at + ttlMs);
      await database.db
        .insertInto("dashboard_keys")
        .values({ key, value, expires_at })
        .onConflict((oc) => oc.column("key").doUpdateSet({ value, expires_at }))
        .execute();
    },
    async get(key) {
      const row = await database.db.selectFrom("dashboard_keys").select("value").where("key", "=", key).where("expires_at", ">", iso(now())).executeTakeFirst();
      return row?.value ?? null;
    },
    async take(key) {
      const row = await database.db.deleteFrom("dashboard_keys").where("key", "=", key).where("expires_at", ">", iso(now())).returning("value").executeTakeFirst();
      return row?.value ?? null;
    },
    async touch(key, ttlMs) {
      const at = now();
      await database.db.updateTable("dashboard_keys").set({ expires_at: iso(at + ttlMs) }).where("key", "=", key).where("expires_at", ">", iso(at)).execute();
    },
    async remove(key) {
      await database.db.deleteFrom("dashboard_keys").where("key", "=", key).execute();
    },
    // The rows are the service's, not this process's: other processes (and this one's next start) keep using them.
    close: async () => {},
  };
}
