import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { openSqlite } from "../../core/src/storage/sqlite.js";
import { createTestApp, type TestApp } from "./testing/test-app.js";

/**
 * What a hand edit, a disk error or another version can leave in a product's rows, and what the row's
 * problem is then called. SQLite keeps any value in any column; PostgreSQL refuses text that is not JSON in
 * a JSON column and a value of another type, so there only JSON of another shape and a value outside its
 * set can be met.
 */
const DAMAGE: Array<{ what: string; set: string; problem: string; listed: boolean }> = [
  { what: "checkout fields cut short", set: `checkout_fields = '[{"field_key":"size","label":"Si'`, problem: "checkout_fields is not valid JSON (cut short or edited)", listed: true },
  { what: "checkout fields of another shape", set: `checkout_fields = '{"hello":"world"}'`, problem: "checkout_fields is not a list", listed: true },
  { what: "a product type lp does not have", set: "product_type = 'gadget'", problem: 'product_type is "gadget", not one of physical, service', listed: false },
  { what: "a price that is not a number", set: "price = 'cheap'", problem: 'price is "cheap", not a number', listed: false },
  { what: "a title written as bytes", set: "title = x'4c616d70'", problem: "title is bytes, not text", listed: false },
];

/** A store a test app runs on, and how its rows are edited behind lp's back. */
interface Store {
  /** Opens the app (again, on the same data), logging into `lines`. */
  open(lines: string[]): Promise<TestApp>;
  /** Runs `update` on the database as `sqlite3` would, the app stopped when the store outlives it. */
  edit(app: TestApp, update: string): Promise<TestApp>;
  /** Where the log line says the row is. */
  where: string;
  dispose(): void;
}

function sqliteStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), "lp-damaged-"));
  const file = join(dir, "lp.db");
  const open = (lines: string[]) => createTestApp({ dataDir: dir, coreDeps: { log: (l) => lines.push(l) } });
  return {
    open,
    // With the server stopped, as `sqlite3 lp.db "UPDATE products ..."` would.
    async edit(app, update) {
      await app.close();
      const db = openSqlite(file);
      try {
        expect(db.prepare(update).run().changes).toBe(1);
      } finally {
        db.close();
      }
      return app;
    },
    where: file,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function memoryStore(): Store {
  return {
    open: (lines) => createTestApp({ storage: "memory", coreDeps: { log: (l) => lines.push(l) } }),
    // A database in memory lives only with its app: edited through its own connection, as a hand would.
    async edit(app, update) {
      expect(Number((await sql.raw(update).execute(app.core.database.db)).numAffectedRows)).toBe(1);
      return app;
    },
    where: "memory storage",
    dispose: () => {},
  };
}

const STORES = { sqlite: sqliteStore, memory: memoryStore };

describe.each(["sqlite", "memory"] as const)("a damaged product row on %s", (kind) => {
  let store: Store;
  let app: TestApp | null = null;
  afterEach(async () => {
    await app?.close();
    app = null;
    store?.dispose();
  });

  it.each(DAMAGE)("$what: its GET, PATCH and DELETE answer 500 record_unreadable naming it, lists go on, one log line, the rest works", async ({ set, problem, listed }) => {
    store = STORES[kind]();
    let lines: string[] = [];
    app = await store.open(lines);
    const ids: string[] = [];
    for (const title of ["First", "Damaged", "Third"]) ids.push((await app.call("POST", `${app.account}/products`, { body: { title, product_type: "physical", price: 3 } })).json.data.id);
    const edited = await store.edit(app, `UPDATE products SET ${set} WHERE id = '${ids[1]}'`);
    if (kind === "sqlite") {
      lines = [];
      app = await store.open(lines);
    } else app = edited;

    for (let i = 0; i < 2; i++) {
      const list = await app.call("GET", `${app.account}/products`);
      expect(list.status).toBe(200);
      // A list shows the row when every column it shows is sound (checkout fields are not among them).
      expect(list.json.data.map((p: { id: string }) => p.id).sort()).toEqual((listed ? [...ids] : [ids[0], ids[2]]).sort());
    }
    const get = await app.call("GET", `${app.account}/products/${ids[1]}`);
    expect(get.status).toBe(500);
    expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id: ids[1] } });
    expect(get.json.error.message).toBe(`The stored product '${ids[1]}' cannot be read (${problem}); its row in the database needs repair.`);
    const patch = await app.call("PATCH", `${app.account}/products/${ids[1]}`, { body: { title: "x" } });
    expect(patch.status).toBe(500);
    expect(patch.json.error.code).toBe("record_unreadable");
    expect((await app.call("DELETE", `${app.account}/products/${ids[1]}`)).json.error.code).toBe("record_unreadable");
    expect((await app.call("GET", `${app.account}/products/${ids[0]}`)).status).toBe(200);
    expect((await app.call("POST", `${app.account}/products`, { body: { title: "New", product_type: "physical", price: 1 } })).status).toBe(201);
    // Named once, with where the row is, and never with a stack.
    expect(lines.filter((l) => l.includes(ids[1]!))).toEqual([
      `storage: unreadable row products/${ids[1]} in ${store.where}: ${problem}; its reads answer 500 record_unreadable and lists leave it out until the row is repaired`,
    ]);
  });

  it("a damaged image row of a product: its GET answers record_unreadable, its list item is shown", async () => {
    store = STORES[kind]();
    let lines: string[] = [];
    app = await store.open(lines);
    const made = await app.call("POST", `${app.account}/products`, { body: { title: "Pictured", product_type: "physical", price: 3, images: ["https://img.test/a.png"] } });
    const id = made.json.data.id as string;
    const edited = await store.edit(app, `UPDATE product_images SET display_order = 'first' WHERE product_id = '${id}'`);
    if (kind === "sqlite") {
      lines = [];
      app = await store.open(lines);
    } else app = edited;
    expect((await app.call("GET", `${app.account}/products`)).json.data.map((p: { id: string; preview_image_url: string }) => [p.id, p.preview_image_url])).toEqual([[id, "https://img.test/a.png"]]);
    const get = await app.call("GET", `${app.account}/products/${id}`);
    expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id } });
    expect(get.json.error.message).toContain('display_order is "first", not an integer');
    expect(lines.filter((l) => l.includes(id))).toHaveLength(1);
  });
});
