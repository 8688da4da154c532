import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStores, type StorageKind, type Stores } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { faultyStores } from "../../core/src/testing/faulty-stores.js";
import { testRedisStores } from "../../core/src/testing/test-redis-stores.js";
import { testStorages } from "./testing/test-app.js";
import { createWebhookTestApp, eventsOf, type WebhookTestApp } from "./routes/webhooks-test-kit.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** Fresh stores of `kind`, and how to remove what they leave behind once the app has closed them. */
async function freshStores(kind: StorageKind): Promise<{ stores: Stores; remove(): Promise<void> }> {
  if (kind === "redis") return testRedisStores();
  if (kind === "memory") return { stores: createStores("memory"), remove: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), "lp-write-faults-"));
  return { stores: createStores("sqlite", dir), remove: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes while the store refuses them (an injected ENOSPC on every write path: records, media, batches,
 * Idempotency-Key claims), on every store the suites run on. Each write must answer at once with 507 and
 * Retry-After, however many are in flight together and whatever they hold (the quota lock, an
 * Idempotency-Key, a fan-out to webhook endpoints): a write that never settles would hold its locks for
 * ever and time the test out. Once room is back every write goes through again without a restart, and
 * nothing acknowledged before or during the fault is lost, its webhook deliveries included.
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
      const fresh = await freshStores(storage as StorageKind);
      remove = fresh.remove;
      const faulty = faultyStores(fresh.stores);
      const lines: string[] = [];
      // What the webhook engine reports failing (fan-outs name their event), and a wait for n of them to fail.
      const failures: string[] = [];
      let seen: { n: number; resolve: () => void } | null = null;
      const distinct = () => new Set(failures).size;
      const onError = (what: string) => {
        failures.push(/\bevt_[0-9a-f]+$/.exec(what)?.[0] ?? what);
        if (seen && distinct() >= seen.n) seen.resolve();
      };
      const reported = (n: number) => (distinct() >= n ? Promise.resolve() : new Promise<void>((resolve) => (seen = { n, resolve })));
      t = await createWebhookTestApp({ stores: faulty.stores, coreDeps: { log: (line) => lines.push(line), every: () => () => {}, webhooks: { onError } } });
      return { t, faulty, lines, failures, reported };
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
      // Every kind of write at once, several of each, so they queue behind each other's locks.
      const writes = () => [
        ...[0, 1, 2, 3].map((i) => t.call("POST", "products", { body: productBody(`Plain ${i}`) })),
        ...[0, 1, 2, 3].map((i) => t.call("POST", "products", { body: productBody(`Keyed ${i}`), headers: { "idempotency-key": `during-${i}` } })),
        ...[0, 1].map((i) => t.call("POST", "products", { raw: imageForm(`Image ${i}`) })),
        t.call("PATCH", `products/${kept.id}`, { body: { title: "Renamed" } }),
        t.call("DELETE", `products/${pictured.json.data.id}`),
        t.dev("PATCH", `/${endpoints[0].id}`, { concurrency_limit: 3 }),
        // A generation job: its journal entry, then its record.
        t.call("POST", "pages", { body: { product_id: kept.id, options: { language: "en" } } }),
      ];
      for (let round = 0; round < 2; round++) {
        const refused = await Promise.all(writes());
        for (const res of refused) {
          expect(res.status, res.text).toBe(507);
          expect(res.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "disk_full" } });
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
        }
      }
      // Reads need no write, nor does a replay here; on Redis the key's claim is one script that writes its
      // marker before it reads (refused at maxmemory too), so a replay waits for room like any write.
      const replay = await t.call("POST", "products", { body: productBody("Keyed"), headers: { "idempotency-key": "before-the-fault" } });
      if (storage === "redis") expect(replay.status).toBe(507);
      else expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect((await t.call("GET", "products")).json.data.map((p: { title: string }) => p.title).sort()).toEqual(["Keyed", "Kept", "Pictured"].sort());
      expect((await t.call("GET", "/healthz")).json).toMatchObject({ status: "degraded", reason: "disk_full" });
      // The probe the timer runs while the fault lasts: still refused.
      await t.core.storageHealth.probe();
      expect(t.core.storageHealth.state()).toMatchObject({ reason: "disk_full" });

      faulty.heal();
      await t.core.storageHealth.probe();
      expect((await t.call("GET", "/healthz")).json).toMatchObject({ status: "ok" });
      expect(lines.at(-1)).toMatch(/^storage: writes accepted again at /);
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

    it("answers 507 at once for a write refused part-way, in the batch after its first record", async () => {
      const { t, faulty } = await setUp();
      const product = await t.product("Lamp");
      // The generation job's journal entry fits; the job record, written as a batch after it, does not.
      faulty.refuse({ errno: "ENOSPC", keys: (key) => key.startsWith("acct:") && key.includes(":jobs:") });
      const page = () => t.call("POST", "pages", { body: { product_id: product.id, options: { language: "en" } } });
      const refused = await Promise.all([page(), page(), page()]);
      for (const res of refused) {
        expect(res.status).toBe(507);
        expect(res.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "disk_full" } });
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(faulty.state.refused).toBeGreaterThanOrEqual(3);
      faulty.heal();
      const job = await page();
      expect(job.status).toBe(202);
      t.release();
      await t.core.onIdle();
      const done = await t.call("GET", `pages/jobs/${job.json.data.job_id}`);
      expect(done.json.data.status).toBe("completed");
      expect((await t.call("GET", "pages")).json.data).toHaveLength(1);
    });
  });
}
