import { deploymentSchema, jobSchema, productImageSchema, productSummarySchema } from "@lp/contract";
import { z } from "zod";
import { SCOPES } from "../accounts/schemas.js";

// The schemas of stored records, one set for the two places that check them. `read` is what every reader
// of a kind relies on, checked on each record read (record-check.ts): enough to refuse a record of another
// shape (a hand edit, another version, a file cut short into valid JSON) without restating every type of
// the domain, and cheap, as it runs on every read. `full` is what an import checks before anything changes
// (admin/import-check.ts): the read schema extended with the rest of the record and exact types, so a
// record readers would choke on is named in a 400 instead of becoming a 500 on every later read. Both let
// extra fields through: a newer optional field is not damage, and an export of a newer version may carry more.
const seg = "[^:]+";
const text = z.string();
const time = z.string().min(1);
const nullableText = z.string().nullable();
const id = z.string().min(1).max(200);
const loose = z.looseObject;
const environment = z.enum(["production", "test"]);

const product = loose({
  id: text,
  account_id: text,
  title: text,
  product_type: text,
  images: z.array(loose({ id: text, url: text, display_order: z.number(), media_path: nullableText })),
  created_at: time,
  updated_at: time,
  deleted_at: nullableText,
});
const page = loose({ id: text, account_id: text, slug: text, status: text, job_id: text, content: loose({}), created_at: time, updated_at: time });
const job = loose({ job_id: text, account_id: text, status: text, created_at: time, updated_at: time });
const deployment = loose({ id: text, page_id: text, status: text, created_at: time });
const account = loose({ account_id: text, environment: text, page_quota: z.number(), created_at: time });
const token = loose({ account_id: text, scopes: z.array(text), expires_at: nullableText, created_at: time });
const app = loose({ application_id: text, account_ids: z.array(text), secret_hash: text, created_at: time });
const endpoint = loose({ id: text, application_id: text, url: text, events: z.array(text), status: text, secret: text, created_at: time });
const delivery = loose({ id: text, endpoint_id: text, event_id: text, status: text, attempts: z.array(z.unknown()), created_at: time });

// The import schemas are built on the first import, not at start-up: they are half of the schemas here.
const fullPage = () => page.extend({
  id,
  account_id: id,
  slug: z.string().min(1),
  status: z.enum(["draft", "published"]),
  language: z.string(),
  product: loose({ id, title: z.string(), price: z.number() }),
  content: loose({ sections: z.array(loose({ type: z.string() })) }),
  global_theme: z.record(z.string(), z.unknown()),
  seo_config: z.record(z.string(), z.unknown()),
  checkout_fields: z.array(loose({ field_key: z.string() })),
  hero_image_url: nullableText,
  // Pages written before the banner was dropped still carry it.
  banner_image_url: nullableText.optional(),
  deployed_url: nullableText,
  job_id: id,
});
const event = loose({ id, type: z.string(), timestamp: time, environment });

const FULL = {
  page: fullPage,
  product: () => product.extend({
    ...productSummarySchema.omit({ preview_image_url: true }).shape,
    account_id: id,
    images: z.array(productImageSchema.extend({ media_path: nullableText, bytes: z.number().int().min(0).optional() })),
    checkout_fields: z.array(loose({ field_key: z.string(), label: z.string(), field_type: z.string() })).nullable(),
    deleted_at: time.nullable(),
  }),
  job: () => job.extend({ ...jobSchema.shape, account_id: id, request: loose({ product_id: id, language: z.string() }) }),
  deployment: () => deployment.extend({ ...deploymentSchema.shape, account_id: id, simulate: nullableText }),
  account: () => account.extend({
    account_id: id,
    environment,
    currency: z.string().regex(/^[A-Z]{3}$/),
    page_quota: z.number().int().min(0),
    product_quota: z.number().int().min(0).optional(),
    media_quota_bytes: z.number().int().min(0).optional(),
  }),
  token: () => token.extend({ account_id: id, scopes: z.array(z.enum(SCOPES)), expires_at: time.nullable() }),
  app: () => app.extend({ application_id: id, name: z.string(), account_ids: z.array(id), secret_hash: z.string().regex(/^[0-9a-f]{64}$/) }),
  endpoint: () => endpoint.extend({ id, application_id: id, environment, concurrency_limit: z.number().int(), secret: z.string().min(1), circuit: loose({}), updated_at: time }),
  delivery: () => delivery.extend({
    id,
    application_id: id,
    endpoint_id: id,
    event_id: id,
    event_type: z.string(),
    status: z.enum(["pending", "succeeded", "failed", "skipped"]),
    attempts: z.array(loose({ number: z.number().int() })),
    payload: event,
    updated_at: time,
  }),
};

/** One store of the data store: its records' keys and schemas. */
export interface RecordStore {
  /** The store's name in an import's refusals ("products"). */
  store: string;
  key: RegExp;
  /** What the read path calls one record ("product"), for the stores it checks; null for the others. */
  kind: string | null;
  /** What every reader relies on, checked on each read; null: any JSON object. */
  read: z.ZodType | null;
  /** What an import requires (built on first use). */
  full(): z.ZodType;
}

/** `build`, called once on first use. */
const once = (build: () => z.ZodType) => {
  let schema: z.ZodType | undefined;
  return () => (schema ??= build());
};
const checked = (store: string, key: RegExp, kind: string, read: z.ZodType, full: () => z.ZodType): RecordStore => ({ store, key, kind, read, full: once(full) });
const importOnly = (store: string, key: RegExp, full: () => z.ZodType): RecordStore => ({ store, key, kind: null, read: null, full: once(full) });

/** Every store, by the shape of its keys; the first pattern a key matches decides. */
export const RECORD_STORES: readonly RecordStore[] = [
  checked("accounts", new RegExp(`^accounts:${seg}$`), "account", account, FULL.account),
  checked("tokens", /^tokens:[0-9a-f]{64}$/, "token", token, FULL.token),
  checked("apps", new RegExp(`^apps:${seg}$`), "application", app, FULL.app),
  checked("products", new RegExp(`^acct:${seg}:products:${seg}$`), "product", product, FULL.product),
  checked("pages", new RegExp(`^acct:${seg}:pages:${seg}$`), "page", page, FULL.page),
  checked("jobs", new RegExp(`^acct:${seg}:jobs:${seg}$`), "job", job, FULL.job),
  checked("deployments", new RegExp(`^acct:${seg}:deployments:${seg}:${seg}$`), "deployment", deployment, FULL.deployment),
  importOnly("active deployments", new RegExp(`^acct:${seg}:activedeploy:${seg}$`), () => loose({ deployment_id: id })),
  importOnly("checkouts", new RegExp(`^acct:${seg}:checkouts:${seg}$`), () => loose({ id, account_id: id, page_id: id, deployment_id: id, values: z.record(z.string(), z.string()), created_at: time })),
  importOnly("idempotency", new RegExp(`^idem:${seg}:${seg}$`), () => loose({ fingerprint: z.string(), response: loose({ status: z.number().int() }).nullable(), created_at: time, expires_at: time })),
  importOnly("page owners", new RegExp(`^pageowners:${seg}$`), () => loose({ account_id: id })),
  importOnly("sites", new RegExp(`^sites:${seg}:${seg}$`), () => loose({ page_id: id, deployment_id: id, activated_at: time, url: z.string().optional() })),
  importOnly("site files", new RegExp(`^sitefiles:${seg}:${seg}:${seg}$`), () => loose({ html: z.string(), page: loose({}), deployment_id: id })),
  importOnly("generation journal", new RegExp(`^inflight:jobs:${seg}:${seg}$`), () => loose({ at: time, page_id: id.optional() })),
  importOnly("deployment journal", new RegExp(`^inflight:deployments:${seg}:${seg}:${seg}$`), () => loose({ at: time })),
  importOnly("deletion journal", new RegExp(`^deleting:pages:${seg}:${seg}$`), () => loose({ page: fullPage() })),
  checked("webhook endpoints", new RegExp(`^webhooks:endpoints:${seg}:${seg}$`), "webhook endpoint", endpoint, FULL.endpoint),
  importOnly("webhook endpoints revision", /^webhooks:endpoints-rev$/, () => loose({ rev: z.string() })),
  checked("webhook deliveries", new RegExp(`^webhooks:deliveries:${seg}:${seg}$`), "delivery", delivery, FULL.delivery),
  importOnly("pending deliveries", new RegExp(`^webhooks:pending:${seg}$`), () => loose({ id, endpoint_id: id })),
  importOnly("webhook outbox", new RegExp(`^webhooks:outbox:${seg}$`), () => event),
];

/** The store `key` belongs to, or undefined when no store keeps records under it. */
export function storeOfKey(key: string): RecordStore | undefined {
  return RECORD_STORES.find((store) => store.key.test(key));
}

/** The key pattern of every store, for the pattern sweep (`server/src/redos-sweep.test.ts`). */
export const storeKeyPatterns = (): RegExp[] => RECORD_STORES.map((store) => store.key);
