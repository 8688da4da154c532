import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { DAMAGED_STORES, selectValue, unreadableLine, type DamagedStore } from "./testing/damaged-stores.js";
import type { TestApp } from "./testing/test-app.js";

/**
 * What a hand edit, a disk error or another version can leave in a row, and what the row's problem is then
 * called; `listed`: whether a list still shows the row (its damage is in a column lists do not show).
 */
type Damage = { what: string; set: string; problem: string; listed: boolean };

const PRODUCT_DAMAGE: Damage[] = [
  { what: "checkout fields cut short", set: `checkout_fields = '[{"field_key":"size","label":"Si'`, problem: "checkout_fields is not valid JSON (cut short or edited)", listed: true },
  { what: "checkout fields of another shape", set: `checkout_fields = '{"hello":"world"}'`, problem: "checkout_fields is not a list", listed: true },
  { what: "a product type lp does not have", set: "product_type = 'gadget'", problem: 'product_type is "gadget", not one of physical, service', listed: false },
  { what: "a price that is not a number", set: "price = 'cheap'", problem: 'price is "cheap", not a number', listed: false },
  { what: "a title written as bytes", set: "title = x'4c616d70'", problem: "title is bytes, not text", listed: false },
];

const PAGE_DAMAGE: Damage[] = [
  { what: "content cut short", set: `content = '{"sections":[{"type":"hero","id":"he'`, problem: "content is not valid JSON (cut short or edited)", listed: true },
  { what: "a section without a type", set: `content = '{"sections":[{"id":"hero"}]}'`, problem: "content.sections[0].type is absent, not text", listed: true },
  { what: "a theme of another shape", set: `global_theme = '["#ffffff"]'`, problem: "global_theme is not a theme", listed: true },
  { what: "a theme that is JSON null", set: "global_theme = 'null'", problem: "global_theme is null, not a theme", listed: true },
  { what: "an SEO title that is not text", set: `seo_config = '{"title":5}'`, problem: "seo_config.title is 5, not text", listed: true },
  { what: "a checkout field without a key", set: `checkout_fields = '[{"label":"Size"}]'`, problem: "checkout_fields[0].field_key is absent, not text", listed: true },
  { what: "a product title that is not text", set: "product = json_set(product, '$.title', 7)", problem: "product.title is 7, not text", listed: false },
  { what: "a creation time written as bytes", set: "created_at = x'32303236'", problem: "created_at is bytes, not text", listed: false },
];

const inline = (title: string) => ({ product: { title, description: "Sturdy.", price: 12, product_type: "physical" } });
const ids = (list: { json: { data: { id: string }[] } }) => list.json.data.map((item) => item.id).sort();

describe.each(["sqlite", "memory"] as const)("damaged rows on %s", (kind) => {
  let store: DamagedStore;
  let app: TestApp | null = null;
  let lines: string[] = [];
  afterEach(async () => {
    await app?.close();
    app = null;
    store?.dispose();
  });
  const open = async () => {
    store = DAMAGED_STORES[kind]();
    lines = [];
    app = await store.open(lines);
    return app;
  };
  /** Damages rows, and goes on with the app (started again on the edited file, for SQLite) and its fresh log. */
  const damage = async (...updates: string[]) => {
    ({ app, lines } = await store.edit(app!, ...updates));
    return app;
  };
  const named = (id: string) => lines.filter((l) => l.includes(id));

  async function createPage(t: TestApp, title: string): Promise<string> {
    const res = await t.call("POST", "pages", { body: inline(title) });
    expect(res.status).toBe(202);
    await t.core.onIdle();
    return (await t.call("GET", res.json.data.poll_url)).json.data.page_id;
  }

  describe("a damaged product row", () => {
    it.each(PRODUCT_DAMAGE)("$what: its GET, PATCH and DELETE answer 500 record_unreadable naming it, lists go on, one log line, the rest works", async ({ set, problem, listed }) => {
      let t = await open();
      const made: string[] = [];
      for (const title of ["First", "Damaged", "Third"]) made.push((await t.call("POST", "products", { body: { title, product_type: "physical", price: 3 } })).json.data.id);
      t = await damage(`UPDATE products SET ${set} WHERE id = '${made[1]}'`);
      for (let i = 0; i < 2; i++) {
        const list = await t.call("GET", "products");
        expect(list.status).toBe(200);
        // A list shows the row when every column it shows is sound (checkout fields are not among them).
        expect(ids(list)).toEqual((listed ? [...made] : [made[0]!, made[2]!]).sort());
      }
      const get = await t.call("GET", `products/${made[1]}`);
      expect(get.status).toBe(500);
      expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id: made[1] } });
      expect(get.json.error.message).toBe(`The stored product '${made[1]}' cannot be read (${problem}); its row in the database needs repair.`);
      const patch = await t.call("PATCH", `products/${made[1]}`, { body: { title: "x" } });
      expect(patch.status).toBe(500);
      expect(patch.json.error.code).toBe("record_unreadable");
      expect((await t.call("DELETE", `products/${made[1]}`)).json.error.code).toBe("record_unreadable");
      expect((await t.call("GET", `products/${made[0]}`)).status).toBe(200);
      expect((await t.call("POST", "products", { body: { title: "New", product_type: "physical", price: 1 } })).status).toBe(201);
      // Named once, with where the row is, and never with a stack.
      expect(named(made[1]!)).toEqual([unreadableLine(store, `products/${made[1]}`, problem)]);
    });

    it("a damaged image row of a product: its GET answers record_unreadable, its list item is shown", async () => {
      let t = await open();
      const id = (await t.call("POST", "products", { body: { title: "Pictured", product_type: "physical", price: 3, images: ["https://img.test/a.png"] } })).json.data.id as string;
      t = await damage(`UPDATE product_images SET display_order = 'first' WHERE product_id = '${id}'`);
      expect((await t.call("GET", "products")).json.data.map((p: { id: string; preview_image_url: string }) => [p.id, p.preview_image_url])).toEqual([[id, "https://img.test/a.png"]]);
      const get = await t.call("GET", `products/${id}`);
      expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id } });
      expect(get.json.error.message).toContain('display_order is "first", not an integer');
      expect(named(id)).toHaveLength(1);
    });

    it("an image column holding bytes: the product's GET answers record_unreadable naming it", async () => {
      let t = await open();
      const id = (await t.call("POST", "products", { body: { title: "Pictured", product_type: "physical", price: 3, images: ["https://img.test/a.png"] } })).json.data.id as string;
      t = await damage(`UPDATE product_images SET media_path = x'00ff' WHERE product_id = '${id}'`);
      const get = await t.call("GET", `products/${id}`);
      expect(get.status).toBe(500);
      expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id } });
      expect(get.json.error.message).toContain("media_path");
    });
  });

  describe("a damaged account or token row", () => {
    it("a token whose scopes are not a list: requests with it answer 500 record_unreadable, one log line, never its text", async () => {
      let t = await open();
      expect((await t.call("GET", "products")).status).toBe(200);
      t = await damage(`UPDATE tokens SET scopes = '{"all":true}'`);
      for (let i = 0; i < 2; i++) {
        const res = await t.call("GET", "products");
        expect(res.status).toBe(500);
        expect(res.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "access token" } });
        expect(res.json.error.message).toContain("Create a new token meanwhile");
      }
      const logged = lines.filter((l) => l.includes("unreadable row tokens/"));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain("scopes is not a list of scopes");
      expect(logged.join("\n")).not.toContain(t.creds.token);
    });

    it("an account whose product quota is not a number: its product creates answer 500 record_unreadable naming it, reads go on", async () => {
      let t = await open();
      const id = (await t.call("POST", "products", { body: { title: "Kept", product_type: "physical", price: 3 } })).json.data.id as string;
      t = await damage(`UPDATE accounts SET product_quota = 'lots'`);
      const created = await t.call("POST", "products", { body: { title: "New", product_type: "physical", price: 1 } });
      expect(created.status).toBe(500);
      expect(created.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "account", id: t.creds.account_id } });
      expect(created.json.error.message).toContain('product_quota is "lots", not an integer');
      expect((await t.call("GET", `products/${id}`)).status).toBe(200);
    });
  });

  describe("a damaged page row", () => {
    it.each(PAGE_DAMAGE)("$what: its GET, PATCH, DELETE and deployment answer 500 record_unreadable naming it, lists go on, one log line, the rest works", async ({ set, problem, listed }) => {
      let t = await open();
      const made: string[] = [];
      for (const title of ["First", "Damaged", "Third"]) made.push(await createPage(t, title));
      t = await damage(`UPDATE pages SET ${set} WHERE id = '${made[1]}'`);
      for (let i = 0; i < 2; i++) {
        const list = await t.call("GET", "pages?sort=-created_at");
        expect(list.status).toBe(200);
        expect(ids(list)).toEqual((listed ? [...made] : [made[0]!, made[2]!]).sort());
      }
      const get = await t.call("GET", `pages/${made[1]}`);
      expect(get.status).toBe(500);
      expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "page", id: made[1] } });
      expect(get.json.error.message).toBe(`The stored page '${made[1]}' cannot be read (${problem}); its row in the database needs repair.`);
      expect((await t.call("PATCH", `pages/${made[1]}`, { body: { seo_config: { title: "x" } } })).json.error.code).toBe("record_unreadable");
      expect((await t.call("POST", `pages/${made[1]}/deployments`)).json.error.code).toBe("record_unreadable");
      expect((await t.call("DELETE", `pages/${made[1]}`)).json.error.code).toBe("record_unreadable");
      expect((await t.call("GET", `pages/${made[0]}`)).status).toBe(200);
      expect(await createPage(t, "New")).toEqual(expect.any(String));
      expect(named(made[1]!)).toEqual([unreadableLine(store, `pages/${made[1]}`, problem)]);
    });

    it("a product damaged while its page is generated fails the job naming it; one damaged before refuses the page", async () => {
      const t = await open();
      const product = (await t.call("POST", "products", { body: { title: "Lamp", product_type: "physical", price: 3 } })).json.data.id as string;
      // The job waits at its first step, before it reads the product: damaged meanwhile, through lp's own connection.
      t.core.delays.generationStepMs = 1;
      const job = await t.call("POST", "pages", { body: { product_id: product } });
      expect(job.status).toBe(202);
      await sql.raw(`UPDATE products SET checkout_fields = '[' WHERE id = '${product}'`).execute(t.core.database.db);
      t.core.delays.generationStepMs = 0;
      while (t.core.queue.pending > 0) {
        t.release();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await t.core.onIdle();
      const failed = (await t.call("GET", job.json.data.poll_url)).json.data;
      expect(failed).toMatchObject({ status: "failed", error: { code: "record_unreadable" } });
      expect(failed.error.message).toContain(`The stored product '${product}' cannot be read`);
      const refused = await t.call("POST", "pages", { body: { product_id: product } });
      expect(refused.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "product", id: product } });
      expect(await createPage(t, "Other")).toEqual(expect.any(String));
      expect(lines).toEqual([unreadableLine(store, `products/${product}`, "checkout_fields is not valid JSON (cut short or edited)")]);
    });
  });

  describe("a damaged generation job row", () => {
    it("a settled one: its poll answers record_unreadable naming it", async () => {
      let t = await open();
      const job = (await t.call("POST", "pages", { body: inline("Lamp") })).json.data;
      await t.core.onIdle();
      t = await damage(`UPDATE page_jobs SET warnings = '{"code":"x"}' WHERE job_id = '${job.job_id}'`);
      const poll = await t.call("GET", job.poll_url);
      expect(poll.status).toBe(500);
      expect(poll.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "job", id: job.job_id } });
      expect(named(job.job_id)).toEqual([unreadableLine(store, `page_jobs/${job.job_id}`, "warnings is not a list of warnings")]);
    });

    it("a due one: the worker meets it once, names it once and leaves it not due; other jobs run", async () => {
      let t = await open();
      const job = (await t.call("POST", "pages", { body: inline("Lamp") })).json.data;
      await t.core.onIdle();
      // Processing and due again, with a request another version cut short.
      t = await damage(
        `UPDATE page_jobs SET status = 'processing', step = 'analyzing_product', step_times = '{}', completed_at = NULL, request = '{"product_id":', due_at = '2026-03-01T10:00:00.000Z' WHERE job_id = '${job.job_id}'`,
      );
      t.core.pages.work.wake();
      await t.core.onIdle();
      expect(await selectValue(t, `SELECT coalesce(due_at, lease_owner, 'left') FROM page_jobs WHERE job_id = '${job.job_id}'`)).toBe("left");
      expect((await t.call("GET", job.poll_url)).json.error.code).toBe("record_unreadable");
      expect(await createPage(t, "Other")).toEqual(expect.any(String));
      // No background failure, no second line: the damaged row cost one run.
      expect(lines).toEqual([unreadableLine(store, `page_jobs/${job.job_id}`, "request is not valid JSON (cut short or edited)")]);
    });
  });

  describe("a damaged deployment row", () => {
    it("its GET answers record_unreadable, the page's history leaves it out, the page deploys again and its site is served", async () => {
      let t = await open();
      const page = await createPage(t, "Lamp");
      const first = (await t.call("POST", `pages/${page}/deployments`)).json.data.deployment_id as string;
      await t.core.onIdle();
      const second = (await t.call("POST", `pages/${page}/deployments`)).json.data.deployment_id as string;
      await t.core.onIdle();
      t = await damage(`UPDATE deployments SET step_times = '{"rendering":' WHERE id = '${first}'`);
      const get = await t.call("GET", `pages/${page}/deployments/${first}`);
      expect(get.status).toBe(500);
      expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "deployment", id: first } });
      expect(ids(await t.call("GET", `pages/${page}/deployments`))).toEqual([second]);
      expect((await t.call("GET", `pages/${page}`)).status).toBe(200);
      expect((await t.call("POST", `pages/${page}/deployments`)).status).toBe(202);
      await t.core.onIdle();
      expect((await t.app.request("/sites/acct_dev/lamp/")).status).toBe(200);
      expect(named(first)).toEqual([unreadableLine(store, `deployments/${first}`, "step_times is not valid JSON (cut short or edited)")]);
    });

    it("a due one: the worker meets it once, names it once and leaves it not due; other pages deploy", async () => {
      let t = await open();
      const [page, other] = [await createPage(t, "Lamp"), await createPage(t, "Chair")];
      const id = (await t.call("POST", `pages/${page}/deployments`)).json.data.deployment_id as string;
      await t.core.onIdle();
      t = await damage(`UPDATE deployments SET status = 'deploying', deploy_step = 'rendering', step_times = '[1]', due_at = '2026-03-01T10:00:00.000Z' WHERE id = '${id}'`);
      t.core.deployments.work.wake();
      await t.core.onIdle();
      expect(await selectValue(t, `SELECT coalesce(due_at, lease_owner, 'left') FROM deployments WHERE id = '${id}'`)).toBe("left");
      expect((await t.call("GET", `pages/${page}/deployments/${id}`)).json.error.code).toBe("record_unreadable");
      const next = (await t.call("POST", `pages/${other}/deployments`)).json.data.deployment_id as string;
      await t.core.onIdle();
      expect((await t.call("GET", `pages/${other}/deployments/${next}`)).json.data.status).toBe("succeeded");
      expect(lines).toEqual([unreadableLine(store, `deployments/${id}`, "step_times is not the steps' times")]);
    });

    it("a live site whose files are damaged answers record_unreadable naming its deployment; the others are served", async () => {
      let t = await open();
      const [page, other] = [await createPage(t, "Lamp"), await createPage(t, "Chair")];
      const id = (await t.call("POST", `pages/${page}/deployments`)).json.data.deployment_id as string;
      await t.call("POST", `pages/${other}/deployments`);
      await t.core.onIdle();
      t = await damage(`UPDATE site_files SET page = '{"id":5}' WHERE deployment_id = '${id}'`);
      const site = await t.app.request("/sites/acct_dev/lamp/");
      expect(site.status).toBe(500);
      expect((await site.json()).error).toMatchObject({ code: "record_unreadable", details: { resource: "deployment", id } });
      expect((await t.app.request("/sites/acct_dev/chair/")).status).toBe(200);
      expect(named(id)).toEqual([unreadableLine(store, `site_files/${id}`, "page.id is 5, not text")]);
    });
  });

  describe("a damaged Idempotency-Key record", () => {
    it.each([
      { what: "stored headers cut short", set: `response_headers = '{"content-type":'`, problem: "response_headers is not valid JSON (cut short or edited)" },
      { what: "a stored status no answer has", set: "response_status = 42", problem: "response_status is 42, not an HTTP status" },
    ])("$what: the request is neither replayed nor run again, with record_unreadable naming the key; other keys work", async ({ set, problem }) => {
      let t = await open();
      const send = (key: string, title = "Lamp") => t.call("POST", "products", { body: { title, product_type: "physical", price: 3 }, headers: { "idempotency-key": key } });
      expect((await send("order-1")).status).toBe(201);
      t = await damage(`UPDATE idempotency_keys SET ${set}`);
      const again = await send("order-1");
      expect(again.status).toBe(500);
      expect(again.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "idempotency key", id: "order-1" } });
      expect(again.json.error.message).toBe(
        `The stored idempotency key 'order-1' cannot be read (${problem}); its row in the database needs repair. The request was not run: it may have made its change already. Read the resource it changes, or send the request with a new Idempotency-Key.`,
      );
      expect((await t.call("GET", "products")).json.data).toHaveLength(1);
      expect((await send("order-2", "Chair")).status).toBe(201);
      expect(lines.filter((l) => l.includes("idempotency_keys/"))).toEqual([expect.stringMatching(/^storage: unreadable row idempotency_keys\/acct_dev\/[0-9a-f]{64} in /)]);
    });
  });
});
