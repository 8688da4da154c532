import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../../core/src/storage/sqlite.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAdmin } from "../../core/src/testing/redis-admin.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import { createStores } from "@lp/core";
import { createTestApp, type TestApp } from "./testing/test-app.js";

if (!redisAvailable) console.warn(redisSkipReason("damaged records on Redis"));

/** What a disk error, a hand edit or another version can leave in a record. */
const DAMAGE = {
  torn: '{"id":"4f0c","title":"Cut sh',
  empty: "",
  "wrong shape": '{"hello":"world"}',
  list: "[1,2,3]",
};

interface Store {
  /** Opens the app (again, on the same data), logging into `lines`. */
  open(lines: string[]): Promise<TestApp>;
  /** Overwrites a record behind lp's back, with the app closed. */
  damage(key: string, text: string): Promise<void>;
  /** Where the log line says the record is. */
  where(key: string): string;
  dispose(): Promise<void>;
}

function sqliteStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), "lp-damaged-"));
  return {
    open: (lines) => createTestApp({ dataDir: dir, coreDeps: { log: (l) => lines.push(l) } }),
    // As `sqlite3 lp.db "UPDATE records ..."` would, with the server stopped.
    async damage(key, text) {
      const db = openSqlite(join(dir, "lp.db"));
      try {
        expect(db.prepare("UPDATE records SET value = ? WHERE key = ?").run(text, key).changes).toBe(1);
      } finally {
        db.close();
      }
    },
    where: (key) => `${join(dir, "lp.db")}, key ${key}`,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function redisStore(): Promise<Store> {
  const server: RedisServer = await startRedisServer({ appendfsync: "no" });
  const admin = redisAdmin(server.url);
  return {
    open: (lines) => createTestApp({ stores: createStores("redis", { url: server.url, prefix: "dmg:" }), coreDeps: { log: (l) => lines.push(l) } }),
    damage: async (key, text) => void (await admin.call("SET", `dmg:d:${key}`, text)),
    where: (key) => `Redis key dmg:d:${key}`,
    async dispose() {
      admin.close();
      await server.dispose();
    },
  };
}

const kinds: Array<[string, () => Promise<Store>]> = [["sqlite", async () => sqliteStore()]];
if (redisAvailable) kinds.push(["redis", redisStore]);

describe.each(kinds)("a damaged record on %s", (_kind, make) => {
  let store: Store;
  beforeAll(async () => {
    store = await make();
  });
  afterAll(async () => store?.dispose());

  it.each(Object.entries(DAMAGE))("%s: lists skip it and log its key and file once, its GET answers 500 record_unreadable naming the id, the rest works", async (_what, text) => {
    let app = await store.open([]);
    const ids: string[] = [];
    for (const title of ["First", "Damaged", "Third"]) {
      ids.push((await app.call("POST", `${app.account}/products`, { body: { title, product_type: "physical", price: 3 } })).json.data.id);
    }
    const key = `acct:${app.creds.account_id}:products:${ids[1]}`;
    await app.close();
    await store.damage(key, text);
    const lines: string[] = [];
    app = await store.open(lines);
    try {
      for (let i = 0; i < 2; i++) {
        const list = await app.call("GET", `${app.account}/products`);
        expect(list.status).toBe(200);
        expect(list.json.data.map((p: { title: string }) => p.title).sort()).toEqual(expect.arrayContaining(["First", "Third"]));
        expect(list.json.data.map((p: { id: string }) => p.id)).not.toContain(ids[1]);
      }
      const get = await app.call("GET", `${app.account}/products/${ids[1]}`);
      expect(get.status).toBe(500);
      expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id: ids[1] } });
      expect(get.json.error.message).toContain(ids[1]);
      expect((await app.call("PATCH", `${app.account}/products/${ids[1]}`, { body: { title: "x" } })).status).toBe(500);
      expect((await app.call("GET", `${app.account}/products/${ids[0]}`)).status).toBe(200);
      expect((await app.call("POST", `${app.account}/products`, { body: { title: "New", product_type: "physical", price: 1 } })).status).toBe(201);
      const named = lines.filter((l) => l.includes(key));
      expect(named).toHaveLength(1);
      expect(named[0]).toContain(store.where(key));
    } finally {
      await app.close();
    }
  });
  it("JSON null: lists skip it and log its key once, its GET answers 500 record_unreadable, not an internal error", async () => {
    let app = await store.open([]);
    const ids: string[] = [];
    for (const title of ["First", "Nulled"]) ids.push((await app.call("POST", `${app.account}/products`, { body: { title, product_type: "physical", price: 3 } })).json.data.id);
    const key = `acct:${app.creds.account_id}:products:${ids[1]}`;
    await app.close();
    await store.damage(key, "null");
    const lines: string[] = [];
    app = await store.open(lines);
    try {
      const list = await app.call("GET", `${app.account}/products`);
      expect(list.status).toBe(200);
      expect(list.json.data.map((p: { id: string }) => p.id)).toContain(ids[0]);
      expect(list.json.data.map((p: { id: string }) => p.id)).not.toContain(ids[1]);
      const get = await app.call("GET", `${app.account}/products/${ids[1]}`);
      expect(get.status).toBe(500);
      expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id: ids[1] } });
      const named = lines.filter((l) => l.includes(key));
      expect(named).toHaveLength(1);
      expect(named[0]).toContain("JSON null, not a record");
    } finally {
      await app.close();
    }
  });
});
