import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createAccountRepository } from "../accounts/account-repository.js";
import { createDeploymentRepository } from "../deployments/deployment-repository.js";
import { createIdempotencyRepository } from "../idempotency/idempotency-repository.js";
import { createCursorCodec } from "../lists/cursor.js";
import { createMediaBlobs } from "../media/media-blobs.js";
import { migrateLegacyDataDir } from "../migration/format-1-migration.js";
import { createPageRepository } from "../pages/page-repository.js";
import { createProductRepository } from "../products/product-repository.js";
import { describeDatabases } from "../testing/databases.js";
import { createDeliveryRepository } from "../webhooks/delivery-repository.js";
import { createEndpointRepository } from "../webhooks/endpoint-repository.js";
import type { Database } from "./database.js";
import { toFormat3Rows } from "./format-2-rows.js";
import { importRecords, readFormat2File } from "./import-records.js";

const NOW = "2026-12-01T09:00:00.000Z";
const root = new URL("../../../test/formats/data-dirs/", import.meta.url).pathname;
const image = readFileSync(new URL("../../../fixtures/images/coffee-set.png", import.meta.url));

interface Facts {
  account: string;
  products: number;
  with_images?: Record<string, number>;
  deleted?: string;
  idempotent_product?: string;
  page?: string;
  slug?: string;
  endpoint?: string;
  deliveries?: number;
  succeeded?: number;
  written_before_kill?: string[];
}

type Source = { source: { records: Array<readonly [string, unknown]>; media: Array<readonly [string, Uint8Array]> }; records: Map<string, any>; facts: Facts };
const sources = new Map<string, Source>();

/** The committed data dir `name` as format-2 records (format 1 through today's format-1 migration first), read once per file. */
function sourceOf(name: string, scratch: string): Source {
  const known = sources.get(name);
  if (known) return known;
  const dir = join(scratch, name);
  cpSync(join(root, name), dir, { recursive: true });
  if (name.startsWith("format-1")) migrateLegacyDataDir(dir, { log: () => {} });
  const read = readFormat2File(join(dir, "lp.db"));
  // Read whole now: the dir goes with the test's scratch folder.
  const source = { records: [...read.records], media: [...read.media] };
  const made = { source, records: new Map(source.records), facts: JSON.parse(readFileSync(join(root, `${name}.expected.json`), "utf8")) as Facts };
  sources.set(name, made);
  return made;
}

const omit = (value: object, ...names: string[]) => Object.fromEntries(Object.entries(value).filter(([name]) => !names.includes(name)));
const entriesOf = (records: Map<string, any>, pattern: RegExp) => [...records].filter(([key]) => pattern.test(key));

describeDatabases("format-2 records into the tables", ({ kind, open, target }) => {
  let database: Database;
  let media: Storage;
  let scratch = "";
  beforeEach(async () => {
    scratch = mkdtempSync(join(tmpdir(), "lp-import-records-"));
    const where = await target();
    const { openDatabase } = await import("./database.js");
    database = await openDatabase(where);
    media = createMediaBlobs(kind === "postgres" ? { kind: "database", db: database.db, clock: { now: () => new Date(NOW) } } : kind === "memory" ? { kind: "memory" } : { kind: "files", dir: join(scratch, "media") });
  });
  afterEach(async () => {
    await media.dispose();
    await database.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it.each(["format-2", "format-1", "format-1-killed"])("%s: every resource its facts list, and every record, reads back through the repositories with the same fields", async (name) => {
    const { source, records, facts } = sourceOf(name, scratch);
    const result = await importRecords(database, source, { media, now: NOW });
    expect(result.left).toEqual([]);
    const { db } = database;
    const account = facts.account;

    // The facts of the dir.
    const live = await db.selectFrom("products").select(["id", "title"]).where("account_id", "=", account).where("deleted_at", "is", null).execute();
    expect(live).toHaveLength(facts.products);
    for (const id of facts.written_before_kill ?? []) expect(live.map((p) => p.id)).toContain(id);
    const products = createProductRepository({ dialect: database.dialect, cursors: createCursorCodec(Buffer.alloc(32)) });
    for (const [title, count] of Object.entries(facts.with_images ?? {})) {
      const product = (await products.read(db, account, live.find((p) => p.title === title)!.id))!;
      expect(product.images).toHaveLength(count);
      for (const { media_path } of product.images) expect(Buffer.compare((await media.getItemRaw(media_path!.split("/").join(":"))) as Buffer, image)).toBe(0);
    }
    if (facts.deleted) expect((await products.read(db, account, facts.deleted))!.deleted_at).not.toBeNull();
    if (facts.idempotent_product) {
      const [row] = await db.selectFrom("idempotency_keys").selectAll().where("account_id", "=", account).execute();
      expect(row!.response_status).toBe(201);
      expect(JSON.parse(row!.response_body!).data.id).toBe(facts.idempotent_product);
    }
    if (facts.page) expect((await db.selectFrom("pages").select("slug").where("id", "=", facts.page).executeTakeFirstOrThrow()).slug).toBe(facts.slug);
    if (facts.slug) expect((await createDeploymentRepository(database.dialect).readSite(db, account, facts.slug))?.html).toContain("Linen apron");
    if (facts.endpoint) {
      expect((await createEndpointRepository(database.dialect).get(db, facts.endpoint))!.status).toBe("active");
      const statuses = await db.selectFrom("webhook_deliveries").select("status").where("endpoint_id", "=", facts.endpoint).execute();
      expect(statuses).toHaveLength(facts.deliveries!);
      expect(statuses.every((d) => d.status === "succeeded")).toBe(true);
    }
    expect(result.media).toBe(source.media.length);

    // Every record, read back as the services will read it.
    const accounts = createAccountRepository({ database, clock: { now: () => new Date(NOW) } });
    for (const [, a] of entriesOf(records, /^accounts:/)) expect(await accounts.getAccount(a.account_id)).toEqual(a);
    for (const [key, t] of entriesOf(records, /^tokens:/)) expect(omit((await accounts.findToken(key.slice(7), NOW))!, "expired")).toEqual(t);
    for (const [, app] of entriesOf(records, /^apps:/)) expect(await accounts.getApplication(app.application_id)).toEqual(app);
    for (const [, p] of entriesOf(records, /^acct:[^:]+:products:/)) expect(await products.read(db, p.account_id, p.id)).toEqual(p);
    const pages = createPageRepository(database.dialect);
    for (const [, j] of entriesOf(records, /^acct:[^:]+:jobs:/)) expect(await pages.readJob(db, j.job_id)).toEqual(omit(j, "builder_url"));
    for (const [, p] of entriesOf(records, /^acct:[^:]+:pages:/)) expect(await pages.readPage(db, p.id)).toEqual(p);
    const deployments = createDeploymentRepository(database.dialect);
    for (const [, d] of entriesOf(records, /^acct:[^:]+:deployments:/)) expect(await deployments.readDeployment(db, d.id)).toEqual(d);
    for (const [key, s] of entriesOf(records, /^sites:/)) expect(await deployments.readSitePointer(db, key.split(":")[1]!, key.split(":")[2]!)).toEqual(s);
    for (const [, f] of entriesOf(records, /^sitefiles:/)) expect(await deployments.readSiteFiles(db, f.deployment_id)).toEqual(f);
    for (const [, c] of entriesOf(records, /^acct:[^:]+:checkouts:/)) expect((await deployments.listCheckouts(db, c.account_id, { limit: 10 })).items).toContainEqual(c);
    const idempotency = createIdempotencyRepository(database);
    for (const [key, r] of entriesOf(records, /^idem:/)) {
      const [, accountId, hash] = key.split(":");
      expect(await idempotency.read({ account_id: accountId!, key: hash! })).toEqual({ account_id: accountId, key: hash, fingerprint: r.fingerprint, response: r.response, claimed_by: null, claim_expires_at: null, changed_at: null, created_at: r.created_at, expires_at: r.expires_at });
    }
    const endpoints = createEndpointRepository(database.dialect);
    for (const [, e] of entriesOf(records, /^webhooks:endpoints:/)) expect(await endpoints.get(db, e.id)).toEqual(e);
    const deliveries = createDeliveryRepository();
    for (const [, d] of entriesOf(records, /^webhooks:deliveries:/)) expect(await deliveries.get(db, d.id)).toEqual(d);

    // The service's own keys, as settings; the records of indexes and journals are not kept.
    const settings = Object.fromEntries((await db.selectFrom("settings").select(["name", "value"]).execute()).map((s) => [s.name, s.value]));
    expect(settings).toEqual({
      cursor_key: records.get("meta:cursor_key").value,
      builder_key: records.get("meta:builder_key").value,
      dev_credentials: JSON.stringify(records.get("meta:dev_credentials")),
    });
    expect(result.notNeeded).toBe(entriesOf(records, /^(pageowners|meta:format|inflight|webhooks:pending|acct:[^:]+:activedeploy)/).length);
  });

  it("writes nothing when the database refuses a row: one transaction", async () => {
    const { source } = sourceOf("format-2", scratch);
    // The dev account exists already: the import's row of it is a duplicate key, and every row rolls back.
    await database.db.insertInto("accounts").values({ account_id: "acct_dev", environment: "test", currency: "EUR", page_quota: 1, product_quota: 1, media_quota_bytes: 1, created_at: NOW, updated_at: NOW }).execute();
    await expect(importRecords(database, source, { media, now: NOW })).rejects.toThrow();
    expect(await database.db.selectFrom("products").select("id").execute()).toEqual([]);
    expect(await database.db.selectFrom("accounts").select("currency").execute()).toEqual([{ currency: "EUR" }]);
  });
});

const at = "2026-03-01T10:00:00.000Z";
const acct = { account_id: "a1", environment: "production", currency: "USD", page_quota: 5, created_at: at };
const endpoint = {
  id: "we_1",
  application_id: "app_1",
  url: "https://hooks.example/in",
  events: ["product.created"],
  environment: "production",
  concurrency_limit: 4,
  status: "active",
  disabled_reason: null,
  secret: "whsec_x",
  previous_secret: null,
  previous_secret_expires_at: null,
  circuit: { state: "closed", consecutive_failures: 0, reopen_count: 0, opens_until: null },
  last_verification: null,
  created_at: at,
  updated_at: at,
};
const job = (job_id: string, status: string) => ({
  job_id,
  account_id: "a1",
  status,
  step: status === "processing" ? "writing_copy" : "done",
  step_detail: "",
  page_id: null,
  builder_url: null,
  warnings: [],
  error: null,
  request: { product_id: "11111111-1111-4111-8111-111111111111", language: "en" },
  created_at: at,
  updated_at: at,
  completed_at: null,
});

it("leaves out and names what the tables would refuse, keeps the meaning of journals, fans the outbox out, and defaults old fields", () => {
  const records: Array<[string, unknown]> = [
    // Written before the product and media quotas existed.
    ["accounts:a1", acct],
    ["tokens:" + "a".repeat(64), { account_id: "gone", scopes: [], expires_at: null, created_at: at }],
    ["apps:app_1", { application_id: "app_1", name: "P", account_ids: ["a1", "a1", "gone"], secret_hash: "b".repeat(64), created_at: at }],
    ["acct:a1:jobs:j1", job("j1", "processing")],
    ["acct:a1:jobs:j2", job("j2", "completed")],
    ["deleting:pages:a1:p9", { page: {} }],
    ["webhooks:endpoints:app_1:we_1", endpoint],
    ["webhooks:outbox:evt_1", { id: "evt_1", type: "product.created", timestamp: at, account_id: "a1", environment: "production", data: { id: "x" } }],
    ["webhooks:outbox:evt_2", { id: "evt_2", type: "page.created", timestamp: at, account_id: "a1", environment: "production", data: {} }],
    ["pageowners:p1", { account_id: "a1" }],
    ["nothing:here", {}],
    ["acct:a1:products:p1", "garbage"],
  ];
  const made = toFormat3Rows(records, { now: NOW });
  expect(made.left.map((l) => l.key).sort()).toEqual(["acct:a1:products:p1", "apps:app_1 (account gone)", "nothing:here", "tokens:" + "a".repeat(64)].sort());
  expect(made.left.find((l) => l.key === "nothing:here")!.reason).toBe("no store keeps records under this key");
  expect(made.notNeeded).toBe(1);
  expect(made.rows.accounts).toEqual([{ ...acct, product_quota: 10_000, media_quota_bytes: 500 * 1024 * 1024, updated_at: at }]);
  expect(made.rows.application_accounts).toEqual([{ application_id: "app_1", account_id: "a1", position: 0 }]);
  // Work in flight is due at once; settled work is not.
  expect(made.rows.page_jobs!.map((j) => [j.job_id, j.due_at, j.lease_owner])).toEqual([["j1", at, null], ["j2", null, null]]);
  // The outbox's product.created goes to the subscribed endpoint, pending and due; page.created to no one.
  expect(made.rows.events!.map((e) => e.id)).toEqual(["evt_1", "evt_2"]);
  expect(made.rows.webhook_deliveries).toEqual([expect.objectContaining({ endpoint_id: "we_1", event_id: "evt_1", status: "pending", due_at: at, next_trigger: "scheduled", auto_retry: 1 })]);
  expect(made.isLeftMedia("pages:p9:hero.svg")).toBe(true);
  expect(made.isLeftMedia("pages:p1:hero.svg")).toBe(false);
});
