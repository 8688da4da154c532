/**
 * What the query layer costs over the engine: `npx tsx bench/db-layer.ts [seconds]` (one-off, in process).
 * For an SQLite file (WAL, synchronous=NORMAL, as lp opens it) and for PostgreSQL (a server this script starts
 * from Debian's `postgresql`, skipped without it): single-row insert transactions and primary-key reads,
 * through Kysely (`openDatabase`) against the engine's own client with a prepared statement. Prints one table.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Database } from "../core/src/db/database.js";
import { openSqlite } from "../core/src/storage/sqlite.js";
import { postgresAvailable, startPostgresServer } from "../core/src/testing/postgres-server.js";

const seconds = Number(process.argv[2] ?? 3);
const at = "2026-03-01T10:00:00.000Z";
const account = (account_id: string) => ({ account_id, environment: "production" as const, currency: "USD", page_quota: 1, product_quota: 1, media_quota_bytes: 1, created_at: at, updated_at: at });

/** Calls `op` one at a time for `seconds`; answers calls per second. */
async function rate(op: (i: number) => Promise<unknown> | unknown): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const started = performance.now();
  while (performance.now() < end) await op(n++);
  return n / ((performance.now() - started) / 1000);
}

const rows: Array<[string, string, number, number]> = [];

async function kyselyRates(database: Database, prefix: string) {
  const insert = await rate((i) => database.transaction((tx) => tx.insertInto("accounts").values(account(`${prefix}k${i}`)).execute()));
  const read = await rate((i) => database.db.selectFrom("accounts").selectAll().where("account_id", "=", `${prefix}k${i % 1000}`).executeTakeFirst());
  return { insert, read };
}

const dir = mkdtempSync(join(tmpdir(), "lp-bench-db-"));
try {
  {
    const file = join(dir, "kysely.db");
    const database = await openDatabase({ kind: "sqlite", file });
    const k = await kyselyRates(database, "");
    await database.close();
    // The same schema, reached directly: node:sqlite's prepared statements, BEGIN/COMMIT by hand.
    const raw = openSqlite(file);
    raw.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
    const ins = raw.prepare("insert into accounts (account_id, environment, currency, page_quota, product_quota, media_quota_bytes, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)");
    const get = raw.prepare("select * from accounts where account_id = ?");
    const insert = await rate((i) => {
      raw.exec("BEGIN");
      ins.run(`r${i}`, "production", "USD", 1, 1, 1, at, at);
      raw.exec("COMMIT");
    });
    const read = await rate((i) => get.get(`k${i % 1000}`));
    raw.close();
    rows.push(["sqlite", "insert transaction/s", k.insert, insert], ["sqlite", "primary-key read/s", k.read, read]);
  }
  if (postgresAvailable) {
    const server = await startPostgresServer();
    try {
      const url = await server.createDatabase();
      const database = await openDatabase({ kind: "postgres", url, maxConnections: 1 });
      const k = await kyselyRates(database, "");
      await database.close();
      const pg = (await import("pg")).default;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const insert = await rate(async (i) => {
        await client.query("BEGIN");
        await client.query({ name: "ins", text: "insert into accounts (account_id, environment, currency, page_quota, product_quota, media_quota_bytes, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8)", values: [`r${i}`, "production", "USD", 1, 1, 1, at, at] });
        await client.query("COMMIT");
      });
      const read = await rate((i) => client.query({ name: "get", text: "select * from accounts where account_id = $1", values: [`k${i % 1000}`] }));
      await client.end();
      rows.push(["postgres (1 connection)", "insert transaction/s", k.insert, insert], ["postgres (1 connection)", "primary-key read/s", k.read, read]);
    } finally {
      await server.dispose();
    }
  } else {
    console.error("[bench] PostgreSQL not found (Debian package postgresql): its rows are left out");
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`| engine | operation | Kysely | engine's client | Kysely / client |\n| --- | --- | ---: | ---: | ---: |`);
for (const [engine, op, kysely, raw] of rows) console.log(`| ${engine} | ${op} | ${Math.round(kysely).toLocaleString("en")} | ${Math.round(raw).toLocaleString("en")} | ${(kysely / raw).toFixed(2)} |`);
