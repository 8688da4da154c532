import { DELIVERY_STATUSES } from "@lp/contract";
import { z } from "zod";
import { perPageSchema } from "../lists/list-query.js";
import { ALL_EVENT_TYPES, EVENT_TYPES, INTERNAL_EVENT_TYPES } from "./catalogue.js";

/** Reasons a webhook url is refused by its shape (before any DNS). Null when it is fine. */
export function checkWebhookUrl(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https";
  if (url.username || url.password) return "must not carry credentials (user:password@)";
  if (!url.hostname) return "must name a host";
  return null;
}

const webhookUrl = z
  .string()
  .max(2048, "must be at most 2048 characters")
  .superRefine((value, ctx) => {
    const problem = checkWebhookUrl(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  // The check above, as the document says it: http(s), a host, no `user:password@`.
  .meta({ format: "uri", pattern: "^https?://[^/?#@\\s]+(?:[/?#]\\S*)?$" })
  .describe("http or https URL without credentials");

const internal = new Set<string>(INTERNAL_EVENT_TYPES);
const known = new Set<string>(EVENT_TYPES);

const eventList = z
  .array(z.string().max(100))
  .min(1, "subscribe to at least one event")
  .max(EVENT_TYPES.length)
  .superRefine((names, ctx) => {
    const seen = new Set<string>();
    names.forEach((name, i) => {
      if (internal.has(name)) {
        ctx.addIssue({ code: "custom", path: [i], message: `'${name}' is always delivered and cannot be subscribed to` });
      } else if (!known.has(name)) {
        ctx.addIssue({ code: "custom", path: [i], message: `unknown event '${name}'; one of: ${EVENT_TYPES.join(", ")}` });
      } else if (seen.has(name)) {
        ctx.addIssue({ code: "custom", path: [i], message: `'${name}' is listed twice` });
      }
      seen.add(name);
    });
  })
  // The duplicate check above is `uniqueItems` in the document.
  .meta({ items: { type: "string", enum: [...EVENT_TYPES] }, uniqueItems: true })
  .describe(`Exact event names from the catalogue: ${EVENT_TYPES.join(", ")}`);

const concurrency = z.number().int().min(1).max(50).describe("Deliveries in flight at once, 1 to 50");

/** `POST /v1/developer/webhook-endpoints`. */
export const endpointCreateSchema = z.strictObject({
  url: webhookUrl,
  events: eventList,
  environment: z.enum(["production", "test"]).default("production"),
  concurrency_limit: concurrency.default(4),
});

/** `PATCH /v1/developer/webhook-endpoints/{endpoint_id}`. `status` only pauses or disables. */
export const endpointUpdateSchema = z.strictObject({
  url: webhookUrl.optional(),
  events: eventList.optional(),
  status: z.enum(["paused", "disabled"]).optional().describe("Pause or disable; verify to make it active again"),
  concurrency_limit: concurrency.optional(),
});

const cursor = z.string().min(1).max(1024).optional().describe("Opaque cursor from the previous page's pagination.next_cursor");

/** Query of `GET /v1/developer/webhook-endpoints` (newest first). */
export const endpointListSchema = z.object({ cursor, per_page: perPageSchema });

/** Delivery statuses: the contract's list, re-exported for the core's callers. */
export { DELIVERY_STATUSES };

/** Query of `GET .../deliveries` (newest first). */
export const deliveryListSchema = z.object({
  cursor,
  per_page: perPageSchema,
  status: z.enum(DELIVERY_STATUSES).optional(),
  event_type: z.enum(ALL_EVENT_TYPES.filter((t) => t !== "webhook.verification") as [string, ...string[]]).optional(),
});

/** A create body as `endpointCreateSchema` outputs it (defaults filled in). */
export type EndpointCreateInput = z.output<typeof endpointCreateSchema>;
/** A patch as `endpointUpdateSchema` outputs it. */
export type EndpointUpdateInput = z.output<typeof endpointUpdateSchema>;
/** An endpoints query as `endpointListSchema` outputs it. */
export type EndpointListQuery = z.output<typeof endpointListSchema>;
/** A deliveries query as `deliveryListSchema` outputs it. */
export type DeliveryListQuery = z.output<typeof deliveryListSchema>;
