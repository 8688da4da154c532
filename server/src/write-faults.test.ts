import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Database } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { faultyDatabase } from "../../core/src/testing/faulty-database.js";
import { testPostgresDatabase } from "../../core/src/testing/test-postgres.js";
import { testStorages, type TestStorage } from "./testing/test-app.js";
import { createWebhookTestApp, eventsOf, type WebhookTestApp } from "./routes/webhooks-test-kit.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** A fresh database of `kind` (in `dataDir` on SQLite), and how to remove what it leaves once the app has closed it. */
async function freshDatabase(kind: TestStorage): Promise<{ database: Database; dataDir?: string; remove(): Promise<void> }> {
  if (kind === "postgres") return testPostgresDatabase();
  if (kind === "memory") return { database: await openDatabase({ kind: "memory" }), remove: async () => {} };
  const dataDir = mkdtempSync(join(tmpdir(), "lp-write-faults-"));
  return { database: await openDatabase({ kind: "sqlite", file: join(dataDir, "lp.db") }), dataDir, remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

/**
 * Writes while the database refuses them (the engine's own error for a full disk, injected on every write
 * statement: products, their images' rows, Idempotency-Keys, webhook endpoints, generation jobs, events and
 * deliveries), on every engine the suites run on. Each write must answer at once with 507 and Retry-After, however many are
 * in flight together and whatever they hold (the account's quota lock, an Idempotency-Key, a fan-out to
 * webhook endpoints): a write that never settles would time the test out. Once room is back every write goes
 * through again without a restart, and nothing acknowledged before or during the fault is lost, its webhook
 * deliveries included.
 */
for (const storage of testStorages()) {
  describe(`writes refused by a full disk (${storage})`, () => {
    let t: WebhookTestApp | null = null;
    let remove: (() => Promise<void>) | null = null;
    afterEach(async () => {
      await t?.close();
      await remove?.();
      t = null;
      remove = null;
    });

    async function setUp() {
      const fresh = await freshDatabase(storage);
      remove = fresh.remove;
      const faulty = faultyDatabase(fresh.database);
      const lines: string[] = [];
      t = await createWebhookTestApp({ storage, dataDir: fresh.dataDir, database: faulty.database, coreDeps: { log: (line) => lines.push(line), every: () => () => {} } });
      return { t, faulty, lines };
    }

    const productBody = (title: string) => ({ title, price: 5, product_type: "physical" });
    const imageForm = (title: string) => {
      const form = new FormData();
      form.set("title", title);
      form.set("price", "7");
      form.set("product_type", "physical");
      form.append("images", new Blob([PNG]), "p.png");
      return form;
    };

    it("answers every write 507 at once while refused, takes them all once room is back, and loses nothing acknowledged", async () => {
      const { t, faulty, lines } = await setUp();
      const receivers = [await t.receiver(), await t.receiver()];
      const endpoints: Array<{ id: string }> = [];
      for (const receiver of receivers) endpoints.push(await t.endpoint(receiver, { events: ["product.created", "product.updated", "product.deleted"] }));
      const kept = await t.product("Kept");
      const keyed = await t.call("POST", "products", { body: productBody("Keyed"), headers: { "idempotency-key": "before-the-fault" } });
      expect(keyed.status).toBe(201);
      const pictured = await t.call("POST", "products", { raw: imageForm("Pictured") });
      expect(pictured.status).toBe(201);
      await t.settle();

      faulty.refuse({ errno: "ENOSPC" });
      // Every kind of write at once, several of each, so they queue behind each other's transactions and locks.
      const writes = () => [
        ...[0, 1, 2, 3].map((i) => t.call("POST", "products", { body: productBody(`Plain ${i}`) })),
        ...[0, 1, 2, 3].map((i) => t.call("POST", "products", { body: productBody(`Keyed ${i}`), headers: { "idempotency-key": `during-${i}` } })),
        ...[0, 1].map((i) => t.call("POST", "products", { raw: imageForm(`Image ${i}`) })),
        t.call("PATCH", `products/${kept.id}`, { body: { title: "Renamed" } }),
        t.call("DELETE", `products/${pictured.json.data.id}`),
        t.dev("PATCH", `/${endpoints[0]!.id}`, { concurrency_limit: 3 }),
        // A generation job: its row, claimed later by the generation worker.
        t.call("POST", "pages", { body: { product_id: kept.id, options: { language: "en" } } }),
      ];
      for (let round = 0; round < 2; round++) {
        const started = performance.now();
        const refused = await Promise.all(writes());
        expect(performance.now() - started).toBeLessThan(5000);
        for (const res of refused) {
          expect(res.status, res.text).toBe(507);
          expect(res.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "disk_full" } });
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        }
      }
      // Reads need no write, nor does a replay: its key's upsert finds the answer and changes nothing.
      const replay = await t.call("POST", "products", { body: productBody("Keyed"), headers: { "idempotency-key": "before-the-fault" } });
      expect(replay.status).toBe(201);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect((await t.call("GET", "products")).json.data.map((p: { title: string }) => p.title).sort()).toEqual(["Keyed", "Kept", "Pictured"].sort());
      expect((await t.call("GET", "/healthz")).json).toMatchObject({ status: "degraded", reason: "disk_full", writes_refused: 28 });
      // The probe the timer runs while the fault lasts: still refused.
      await t.core.storageHealth.probe();
      expect(t.core.storageHealth.state()).toMatchObject({ reason: "disk_full" });
      expect(lines.filter((line) => line.startsWith("storage: disk full at "))).toHaveLength(1);

      faulty.heal();
      await t.core.storageHealth.probe();
      expect((await t.call("GET", "/healthz")).json).toMatchObject({ status: "ok" });
      expect(lines.at(-1)).toMatch(/^storage: writes accepted again at .*\(disk full is over; 28 refused in 0 s\)$/);
      const taken = await Promise.all(writes());
      expect(taken.map((res) => res.status)).toEqual([201, 201, 201, 201, 201, 201, 201, 201, 201, 201, 200, 204, 200, 202]);
      // The keys first tried during the fault ran once room was back, and are replayed from now on.
      const again = await t.call("POST", "products", { body: productBody("Keyed 0"), headers: { "idempotency-key": "during-0" } });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.json.data.id).toBe(taken[4]!.json.data.id);

      await t.settle();
      const created = [kept, keyed.json.data, pictured.json.data, ...taken.slice(0, 10).map((res) => res.json.data)].map((p) => p.id).sort();
      const listed = (await t.call("GET", "products?per_page=100")).json.data.map((p: { id: string }) => p.id);
      expect(listed.sort()).toEqual(created.filter((id) => id !== pictured.json.data.id).sort());
      for (const receiver of receivers) {
        const got = eventsOf(receiver).map((d) => `${d.eventType} ${(JSON.parse(d.body) as { data: { id: string } }).data.id}`);
        expect(got.filter((e) => e.startsWith("product.created")).map((e) => e.split(" ")[1]).sort()).toEqual(created);
        expect(got).toContain(`product.updated ${kept.id}`);
        expect(got).toContain(`product.deleted ${pictured.json.data.id}`);
        // Nothing refused was announced: one event per acknowledged change.
        expect(got).toHaveLength(created.length + 2);
      }
    });

    it("answers 507 at once for a write refused part-way, after its first rows, and leaves nothing of it", async () => {
      const { t, faulty } = await setUp();
      const receiver = await t.receiver();
      await t.endpoint(receiver, { events: ["product.created"] });
      await t.product("Lamp");
      await t.settle();
      // The product's row and its images' rows fit; its event does not.
      faulty.refuse({ errno: "ENOSPC", tables: ["events"] });
      const create = () => t.call("POST", "products", { body: { ...productBody("Shade"), images: ["https://img.test/a.png"] } });
      const refused = await Promise.all([create(), create(), create()]);
      for (const res of refused) {
        expect(res.status).toBe(507);
        expect(res.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "disk_full" } });
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(faulty.state.refused).toBe(3);
      expect((await t.call("GET", "products")).json.data.map((p: { title: string }) => p.title)).toEqual(["Lamp"]);
      expect(await t.core.database.db.selectFrom("product_images").select("url").execute()).toEqual([]);
      faulty.heal();
      const made = await create();
      expect(made.status).toBe(201);
      await t.settle();
      expect(eventsOf(receiver).map((d) => d.eventType)).toEqual(["product.created", "product.created"]);
      expect((await t.call("GET", "products")).json.data.map((p: { title: string }) => p.title).sort()).toEqual(["Lamp", "Shade"]);
    });
  });
}
