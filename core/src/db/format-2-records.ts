import { attemptSchema, circuitSchema, DEPLOY_ERROR_CODES, DEPLOY_STEPS, lastVerificationSchema, timestampSchema } from "@lp/contract";
import { z } from "zod";
import { SCOPES } from "../accounts/schemas.js";

// The records of format 2 (the `records` table of a format-2 `lp.db`, and the `records` of an export
// document of version 1), as an import into the tables reads them: each kind by the shape of its key, and
// a schema of what the import needs of it. The schemas only check; the rows are made from the record as it
// was written, so a document (a page's content, a theme) keeps its keys in their order and every field a
// newer lp may have added. Objects let extra fields through for the same reason.

const id = z.string().min(1).max(200);
const time = timestampSchema;
const text = z.string();
const nullableText = z.string().nullable();
const environment = z.enum(["production", "test"]);
const loose = z.looseObject;
const jsonObject = z.record(z.string(), z.unknown());

const account = loose({
  account_id: id,
  environment,
  currency: z.string().regex(/^[A-Z]{3}$/),
  page_quota: z.number().int().min(0),
  // Accounts written before these quotas existed get the defaults.
  product_quota: z.number().int().min(0).optional(),
  media_quota_bytes: z.number().int().min(0).optional(),
  created_at: time,
});
const token = loose({ account_id: id, scopes: z.array(z.enum(SCOPES)), expires_at: time.nullable(), created_at: time });
const app = loose({ application_id: id, name: text, account_ids: z.array(id), secret_hash: z.string().regex(/^[0-9a-f]{64}$/), created_at: time });
const checkoutField = loose({ field_key: text, label: text, field_type: text });
const image = loose({
  id,
  url: text,
  media_type: text,
  display_order: z.number().int(),
  created_at: time,
  media_path: nullableText,
  bytes: z.number().int().min(0).optional(),
});
const product = loose({
  id,
  account_id: id,
  title: text,
  description: nullableText,
  price: z.number(),
  original_price: z.number().nullable(),
  delivery_price: z.number().nullable(),
  product_type: text,
  images: z.array(image),
  // Absent in records written before products kept them.
  checkout_fields: z.array(checkoutField).nullable().optional(),
  created_at: time,
  updated_at: time,
  deleted_at: time.nullable(),
});
const codedMessage = loose({ code: text, message: text });
const job = loose({
  job_id: id,
  account_id: id,
  status: z.enum(["processing", "completed", "failed"]),
  step: z.enum(["analyzing_product", "writing_copy", "generating_images", "building_page", "done"]),
  step_detail: text,
  page_id: id.nullable(),
  warnings: z.array(codedMessage),
  error: codedMessage.nullable(),
  request: loose({ product_id: id, language: text }),
  // Absent in records written before it was kept.
  step_times: z.record(z.string(), time).optional(),
  created_at: time,
  updated_at: time,
  completed_at: time.nullable(),
});
const page = loose({
  id,
  account_id: id,
  slug: z.string().min(1),
  status: z.enum(["draft", "published"]),
  language: text,
  product: loose({ id, title: text, price: z.number() }),
  content: loose({ sections: z.array(loose({ type: text })) }),
  global_theme: jsonObject,
  seo_config: jsonObject,
  checkout_fields: z.array(checkoutField),
  hero_image_url: nullableText,
  deployed_url: nullableText,
  job_id: id,
  created_at: time,
  updated_at: time,
});
const deployment = loose({
  id,
  page_id: id,
  account_id: id,
  status: z.enum(["deploying", "succeeded", "failed"]),
  deploy_step: z.enum(DEPLOY_STEPS).nullable(),
  error_code: z.enum(DEPLOY_ERROR_CODES).nullable(),
  error_message: nullableText,
  deployed_url: nullableText,
  deployed_at: time.nullable(),
  simulate: nullableText.optional(),
  step_times: z.record(z.string(), time).optional(),
  created_at: time,
  updated_at: time,
});
const checkout = loose({ id, account_id: id, page_id: id, deployment_id: id, values: z.record(z.string(), z.string()), created_at: time });
const idempotency = loose({
  fingerprint: text,
  owner: text.optional(),
  response: loose({ status: z.number().int(), headers: z.record(z.string(), z.string()), body: text }).nullable(),
  committed: z.boolean().optional(),
  created_at: time,
  expires_at: time,
});
const site = loose({ page_id: id, deployment_id: id, activated_at: time, url: text.optional() });
const siteFiles = loose({ html: text, page: loose({}), deployment_id: id });
const event = loose({ id, type: text, timestamp: time, account_id: id.nullable(), environment, data: z.unknown() });
const endpoint = loose({
  id,
  application_id: id,
  url: text,
  events: z.array(text),
  environment,
  concurrency_limit: z.number().int().min(1).max(50),
  status: z.enum(["pending_verification", "active", "paused", "disabled"]),
  disabled_reason: z.enum(["manual", "gone", "circuit_breaker"]).nullable(),
  secret: z.string().min(1),
  previous_secret: nullableText,
  previous_secret_expires_at: time.nullable(),
  circuit: circuitSchema,
  last_verification: lastVerificationSchema.nullable(),
  created_at: time,
  updated_at: time,
});
const delivery = loose({
  id,
  application_id: id,
  endpoint_id: id,
  event_id: id,
  event_type: text,
  status: z.enum(["pending", "succeeded", "failed", "skipped"]),
  attempts: z.array(attemptSchema),
  scheduled_attempts: z.number().int().min(0),
  auto_retry: z.boolean(),
  next_trigger: z.enum(["scheduled", "manual", "test"]),
  next_attempt_at: time.nullable(),
  skipped_reason: nullableText,
  payload: event,
  created_at: time,
  updated_at: time,
});
const secretSetting = loose({ value: z.string().min(1) });

/** A kind of format-2 record the tables take, or keep the meaning of. */
export type Format2Kind = keyof typeof KINDS;

// Literals, so the sweep of the request path's patterns checks each one (each segment is `([^:]+)`).
const KINDS = {
  account: { key: /^accounts:([^:]+)$/, schema: account },
  token: { key: /^tokens:([0-9a-f]{64})$/, schema: token },
  app: { key: /^apps:([^:]+)$/, schema: app },
  product: { key: /^acct:([^:]+):products:([^:]+)$/, schema: product },
  page: { key: /^acct:([^:]+):pages:([^:]+)$/, schema: page },
  job: { key: /^acct:([^:]+):jobs:([^:]+)$/, schema: job },
  deployment: { key: /^acct:([^:]+):deployments:([^:]+):([^:]+)$/, schema: deployment },
  checkout: { key: /^acct:([^:]+):checkouts:([^:]+)$/, schema: checkout },
  idempotency: { key: /^idem:([^:]+):([^:]+)$/, schema: idempotency },
  site: { key: /^sites:([^:]+):([^:]+)$/, schema: site },
  siteFiles: { key: /^sitefiles:([^:]+):([^:]+):([^:]+)$/, schema: siteFiles },
  // Its key is what the import needs: the page whose deletion was under way.
  deletion: { key: /^deleting:pages:([^:]+):([^:]+)$/, schema: loose({ page: loose({}) }) },
  endpoint: { key: /^webhooks:endpoints:([^:]+):([^:]+)$/, schema: endpoint },
  delivery: { key: /^webhooks:deliveries:([^:]+):([^:]+)$/, schema: delivery },
  outbox: { key: /^webhooks:outbox:([^:]+)$/, schema: event },
  cursorKey: { key: /^meta:cursor_key$/, schema: secretSetting },
  builderKey: { key: /^meta:builder_key$/, schema: secretSetting },
  adminKey: { key: /^meta:admin_key$/, schema: loose({ key: z.string().min(1) }) },
  devCredentials: { key: /^meta:dev_credentials$/, schema: loose({ account_id: id, token: text, application_id: id, client_secret: text }) },
} as const;

/**
 * Keys of format 2 whose records the tables do not need: the indexes the key-value store kept beside the
 * records (what a page's owner is, which deployment of a page is in flight, which deliveries are pending,
 * the endpoints' revision), its journal of work in flight (a job's or a deployment's marker: in the tables
 * the row itself is the work, due until it settles), and its own meta keys (the format marker, probes).
 */
const NOT_NEEDED: readonly RegExp[] = [
  /^pageowners:([^:]+)$/,
  /^acct:([^:]+):activedeploy:([^:]+)$/,
  /^inflight:jobs:([^:]+):([^:]+)$/,
  /^inflight:deployments:([^:]+):([^:]+):([^:]+)$/,
  /^webhooks:endpoints-rev$/,
  /^webhooks:pending:([^:]+)$/,
  /^meta:/,
];

/** The records of each kind, as the import reads them (checked by the kind's schema). */
export type Format2Record<K extends Format2Kind> = z.output<(typeof KINDS)[K]["schema"]>;

/** What a key is: a record of a kind (with the parts of its key), a key the tables do not need, or unknown. */
export type KeyOf = { kind: Format2Kind; parts: string[] } | { kind: "not_needed" } | { kind: "unknown" };

/** What `key` names in format 2. */
export function toKeyOf(key: string): KeyOf {
  for (const [kind, spec] of Object.entries(KINDS)) {
    const match = spec.key.exec(key);
    if (match) return { kind: kind as Format2Kind, parts: match.slice(1) };
  }
  return NOT_NEEDED.some((pattern) => pattern.test(key)) ? { kind: "not_needed" } : { kind: "unknown" };
}

/**
 * Why `value` is not a record of `kind` (the first issue, naming its field), or null when it is one.
 * Schemas check what was written; the record is then read as written.
 */
export function recordProblem(kind: Format2Kind, value: unknown): string | null {
  const parsed = KINDS[kind].schema.safeParse(value);
  if (parsed.success) return null;
  const first = parsed.error.issues[0]!;
  return `${first.path.length ? `${first.path.join(".")}: ` : ""}${first.message}`;
}
