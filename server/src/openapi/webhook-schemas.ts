import {
  ALL_EVENT_TYPES,
  EVENT_DATA_SCHEMAS,
  EVENT_DESCRIPTIONS,
  EVENT_TYPES,
  eventEnvelope,
} from "@lp/contract";
import { z } from "zod";

export {
  endpointResponse,
  endpointListResponse,
  endpointCreatedResponse,
  endpointRotatedResponse,
  verifyResponse,
  deliveryResponse,
  deliveryListResponse,
} from "@lp/contract";

const EVENT_DATA = EVENT_DATA_SCHEMAS;

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
    const body = type === "webhook.verification" ? z.object({ type: z.literal(type), data: EVENT_DATA[type] }) : eventEnvelope(z.literal(type), EVENT_DATA[type]);
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
