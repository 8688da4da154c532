import { deploymentSchema, jobSchema, productImageSchema, productSummarySchema } from "@lp/contract";
import { z } from "zod";
import { SCOPES } from "../accounts/schemas.js";

/**
 * The schema of every record an export may hold, by the shape of its key. An import checks each record
 * against the schema of its store before anything changes: a record that readers would choke on (a product
 * replaced by a string, an account without quota) is named in a 400 instead of becoming a 500 on every
 * later read. The schemas check what readers rely on and let extra fields through (an export of a newer
 * version may carry more).
 */
const seg = "[^:]+";
const at = z.string().min(1);
const id = z.string().min(1).max(200);
const nullableText = z.string().nullable();
const loose = z.looseObject;

const accountRecord = loose({
  account_id: id,
  environment: z.enum(["production", "test"]),
  currency: z.string().regex(/^[A-Z]{3}$/),
  page_quota: z.number().int().min(0),
  product_quota: z.number().int().min(0).optional(),
  media_quota_bytes: z.number().int().min(0).optional(),
  created_at: at,
});
const tokenRecord = loose({ account_id: id, scopes: z.array(z.enum(SCOPES)), expires_at: at.nullable(), created_at: at });
const appRecord = loose({ application_id: id, name: z.string(), account_ids: z.array(id), secret_hash: z.string().regex(/^[0-9a-f]{64}$/), created_at: at });
const productRecord = productSummarySchema.omit({ preview_image_url: true }).extend({
  account_id: id,
  images: z.array(productImageSchema.extend({ media_path: nullableText, bytes: z.number().int().min(0).optional() })),
  checkout_fields: z.array(loose({ field_key: z.string(), label: z.string(), field_type: z.string() })).nullable(),
  deleted_at: at.nullable(),
});
const pageRecord = loose({
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
  created_at: at,
  updated_at: at,
});
const jobRecord = jobSchema.extend({ account_id: id, request: loose({ product_id: id, language: z.string() }) });
const deploymentRecord = deploymentSchema.extend({ account_id: id, simulate: nullableText });
const endpointRecord = loose({
  id,
  application_id: id,
  url: z.string(),
  events: z.array(z.string()),
  environment: z.enum(["production", "test"]),
  concurrency_limit: z.number().int(),
  status: z.string(),
  secret: z.string().min(1),
  circuit: loose({}),
  created_at: at,
  updated_at: at,
});
const eventRecord = loose({ id, type: z.string(), timestamp: at, environment: z.enum(["production", "test"]) });
const deliveryRecord = loose({
  id,
  application_id: id,
  endpoint_id: id,
  event_id: id,
  event_type: z.string(),
  status: z.enum(["pending", "succeeded", "failed", "skipped"]),
  attempts: z.array(loose({ number: z.number().int() })),
  payload: eventRecord,
  created_at: at,
  updated_at: at,
});

/** Key pattern → the schema of the records stored under it; the first pattern a key matches decides. */
const STORES: [store: string, key: RegExp, schema: z.ZodType][] = [
  ["accounts", new RegExp(`^accounts:${seg}$`), accountRecord],
  ["tokens", /^tokens:[0-9a-f]{64}$/, tokenRecord],
  ["apps", new RegExp(`^apps:${seg}$`), appRecord],
  ["products", new RegExp(`^acct:${seg}:products:${seg}$`), productRecord],
  ["pages", new RegExp(`^acct:${seg}:pages:${seg}$`), pageRecord],
  ["jobs", new RegExp(`^acct:${seg}:jobs:${seg}$`), jobRecord],
  ["deployments", new RegExp(`^acct:${seg}:deployments:${seg}:${seg}$`), deploymentRecord],
  ["active deployments", new RegExp(`^acct:${seg}:activedeploy:${seg}$`), loose({ deployment_id: id })],
  ["checkouts", new RegExp(`^acct:${seg}:checkouts:${seg}$`), loose({ id, account_id: id, page_id: id, deployment_id: id, values: z.record(z.string(), z.string()), created_at: at })],
  ["idempotency", new RegExp(`^idem:${seg}:${seg}$`), loose({ fingerprint: z.string(), response: loose({ status: z.number().int() }).nullable(), created_at: at, expires_at: at })],
  ["page owners", new RegExp(`^pageowners:${seg}$`), loose({ account_id: id })],
  ["sites", new RegExp(`^sites:${seg}:${seg}$`), loose({ page_id: id, deployment_id: id, activated_at: at, url: z.string().optional() })],
  ["site files", new RegExp(`^sitefiles:${seg}:${seg}:${seg}$`), loose({ html: z.string(), page: loose({}), deployment_id: id })],
  ["generation journal", new RegExp(`^inflight:jobs:${seg}:${seg}$`), loose({ at, page_id: id.optional() })],
  ["deployment journal", new RegExp(`^inflight:deployments:${seg}:${seg}:${seg}$`), loose({ at })],
  ["deletion journal", new RegExp(`^deleting:pages:${seg}:${seg}$`), loose({ page: pageRecord })],
  ["webhook endpoints", new RegExp(`^webhooks:endpoints:${seg}:${seg}$`), endpointRecord],
  ["webhook endpoints revision", /^webhooks:endpoints-rev$/, loose({ rev: z.string() })],
  ["webhook deliveries", new RegExp(`^webhooks:deliveries:${seg}:${seg}$`), deliveryRecord],
  ["pending deliveries", new RegExp(`^webhooks:pending:${seg}$`), loose({ id, endpoint_id: id })],
  ["webhook outbox", new RegExp(`^webhooks:outbox:${seg}$`), eventRecord],
];

/** The key pattern of every store an import may write, for the pattern sweep (`server/src/redos-sweep.test.ts`). */
export const storeKeyPatterns = (): RegExp[] => STORES.map(([, key]) => key);

/** One refusal of an import, in the shape of `validation_error`'s issues. */
export interface RecordIssue {
  path: string;
  code: string;
  message: string;
}

/** Checks one record against the schema of the store its key belongs to; issues name the key. */
export function checkRecord(key: string, value: unknown): RecordIssue[] {
  const store = STORES.find(([, pattern]) => pattern.test(key));
  const path = `records.${key}`;
  if (!store) return [{ path, code: "unknown_store", message: "no store keeps records under this key" }];
  const parsed = store[2].safeParse(value);
  if (parsed.success) return [];
  const first = parsed.error.issues[0]!;
  const where = first.path.length ? `${first.path.join(".")}: ` : "";
  return [{ path, code: "invalid_record", message: `is not a valid ${store[0]} record (${where}${first.message})` }];
}
