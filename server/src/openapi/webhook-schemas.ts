import { ALL_EVENT_TYPES, DELIVERY_STATUSES, EVENT_DESCRIPTIONS, EVENT_TYPES } from "@lp/core";
import { z } from "zod";
import { deploymentSchema } from "./deployment-schemas.js";
import { jobSchema, pageListResponse, pageResponse } from "./page-schemas.js";
import { paginationSchema, productResponse, timestampSchema } from "./resource-schemas.js";

const circuit = z.object({
  state: z.enum(["closed", "open", "half_open"]),
  consecutive_failures: z.number().int(),
  reopen_count: z.number().int().describe("Re-opens in a row; ten disable the endpoint"),
  opens_until: timestampSchema.nullable().describe("When the next probe may go out"),
});

const verificationOutcome = z.object({
  outcome: z.enum(["succeeded", "failed"]),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().optional().describe("Why it failed; absent on success"),
});

const endpoint = z.object({
  id: z.string().regex(/^we_[0-9a-f]+$/),
  url: z.url(),
  events: z.array(z.enum(EVENT_TYPES)),
  environment: z.enum(["production", "test"]),
  concurrency_limit: z.number().int().min(1).max(50),
  status: z.enum(["pending_verification", "active", "paused", "disabled"]),
  disabled_reason: z.enum(["manual", "gone", "circuit_breaker"]).nullable(),
  circuit,
  last_verification: verificationOutcome.extend({ error: z.string().nullable(), at: timestampSchema }).nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

const secret = z.string().regex(/^whsec_/).describe("Signing secret; shown only in this response");

const attempt = z.object({
  number: z.number().int().min(1),
  trigger: z.enum(["scheduled", "manual", "test"]),
  started_at: timestampSchema,
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  outcome: z.enum(["succeeded", "failed"]),
  error: z.string().nullable(),
  response_body: z.string().nullable().describe("Only for non-2xx answers, at most 4 KiB"),
  truncated: z.boolean(),
});

/** The body of every delivery: the event envelope, with `data` typed per event type. */
function eventEnvelope<T extends string>(type: T, data: z.ZodType) {
  return z.object({
    id: z.string().regex(/^evt_[0-9a-f]+$/),
    type: z.literal(type),
    timestamp: timestampSchema,
    account_id: z.string().nullable().describe("The account the event happened on; null for webhook.test"),
    environment: z.enum(["production", "test"]),
    data,
  });
}

const checkout = z.object({
  id: z.uuid(),
  page_id: z.uuid(),
  deployment_id: z.uuid(),
  values: z.record(z.string(), z.string()).describe("Submitted values by field_key"),
  created_at: timestampSchema,
});

/** `data` of each event type: the resource as the API returns it. */
const EVENT_DATA: Record<(typeof ALL_EVENT_TYPES)[number], z.ZodType> = {
  "product.created": productResponse.shape.data,
  "product.updated": productResponse.shape.data,
  "product.deleted": productResponse.shape.data,
  "page.created": pageResponse.shape.data,
  "page.generation_failed": jobSchema,
  "page.updated": pageResponse.shape.data,
  "page.deleted": pageListResponse.shape.data.element,
  "deployment.started": deploymentSchema,
  "deployment.succeeded": deploymentSchema,
  "deployment.failed": deploymentSchema,
  "checkout.submitted": checkout,
  "webhook.test": z.object({ endpoint_id: z.string(), message: z.string() }),
  "webhook.verification": z.object({ challenge: z.string() }),
};

const delivery = z.object({
  id: z.string().regex(/^dlv_[0-9a-f]+$/).describe("Also the webhook-id header of every attempt"),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.enum(ALL_EVENT_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.array(attempt),
  next_attempt_at: timestampSchema.nullable(),
  skipped_reason: z.string().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  payload: eventEnvelope("", z.unknown())
    .extend({ type: z.enum(ALL_EVENT_TYPES) })
    .describe("The exact body sent; the schema of data per type is in components (x-webhook-events)"),
});

export const endpointResponse = z.object({ data: endpoint });
export const endpointListResponse = z.object({ data: z.array(endpoint), pagination: paginationSchema });
export const endpointCreatedResponse = z.object({ data: endpoint.extend({ secret, verification: verificationOutcome }) });
export const endpointRotatedResponse = z.object({ data: endpoint.extend({ secret, previous_secret_expires_at: timestampSchema }) });
export const verifyResponse = z.object({ data: verificationOutcome.extend({ endpoint }) });
export const deliveryResponse = z.object({ data: delivery });
export const deliveryListResponse = z.object({ data: z.array(delivery), pagination: paginationSchema });

const componentName = (type: string) => `${type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join("")}Event`;

type JsonSchema = Record<string, unknown>;
const toJson = (schema: z.ZodType): JsonSchema => {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output", unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return out;
};

/**
 * Adds the event catalogue to an OpenAPI 3.1 document: a component schema per event type, the
 * top-level `webhooks` map (one signed POST per type), and `x-webhook-events`, a plain list for tools.
 */
export function withWebhookDocs<D extends { components: { schemas: Record<string, unknown> } }>(doc: D) {
  const schemas: Record<string, unknown> = { ...doc.components.schemas };
  const webhooks: Record<string, unknown> = {};
  const catalogue: unknown[] = [];
  for (const type of ALL_EVENT_TYPES) {
    const name = componentName(type);
    const body = type === "webhook.verification" ? z.object({ type: z.literal(type), data: EVENT_DATA[type] }) : eventEnvelope(type, EVENT_DATA[type]);
    schemas[name] = { ...toJson(body), description: EVENT_DESCRIPTIONS[type] };
    const ref = { $ref: `#/components/schemas/${name}` };
    catalogue.push({ type, subscribable: (EVENT_TYPES as readonly string[]).includes(type), description: EVENT_DESCRIPTIONS[type], schema: ref });
    webhooks[type] = {
      post: {
        summary: type,
        // A delivery is a request lp makes, not one it receives: no credentials of ours apply to it.
        operationId: `receive${componentName(type)}`,
        security: [],
        description: `${EVENT_DESCRIPTIONS[type]} Signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature).`,
        parameters: ["webhook-id", "webhook-timestamp", "webhook-signature", "webhook-event-type", "webhook-attempt"].map((name) => ({
          name,
          in: "header",
          required: name !== "webhook-attempt",
          schema: { type: "string" },
        })),
        requestBody: { required: true, content: { "application/json": { schema: ref } } },
        responses: { "200": { description: "Any 2xx acknowledges the delivery; anything else is retried" } },
      },
    };
  }
  return { ...doc, webhooks, "x-webhook-events": catalogue, components: { ...doc.components, schemas } };
}
