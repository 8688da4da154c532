/**
 * The event catalogue (DESIGN §9). Partners subscribe to these exact names; nothing else is accepted.
 * `webhook.test` and `webhook.verification` are internal: always delivered, never subscribable.
 */
export const EVENT_TYPES = [
  "product.created",
  "product.updated",
  "product.deleted",
  "page.created",
  "page.generation_failed",
  "page.updated",
  "page.deleted",
  "deployment.started",
  "deployment.succeeded",
  "deployment.failed",
  "checkout.submitted",
] as const;

/** A subscribable event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Event types the service sends on its own, whatever an endpoint subscribes to. */
export const INTERNAL_EVENT_TYPES = ["webhook.test", "webhook.verification"] as const;

/** Every type that can appear on the wire. */
export const ALL_EVENT_TYPES = [...EVENT_TYPES, ...INTERNAL_EVENT_TYPES] as const;

/** Any type that can appear on the wire. */
export type AnyEventType = (typeof ALL_EVENT_TYPES)[number];

/** One sentence per type, for the OpenAPI document and the docs. */
export const EVENT_DESCRIPTIONS: Record<AnyEventType, string> = {
  "product.created": "A product was created. data: the product with its images.",
  "product.updated": "A product's fields or media changed. data: the product with its images.",
  "product.deleted": "A product was soft-deleted. data: the product as it was.",
  "page.created": "A generation job completed and made a page. data: the full page.",
  "page.generation_failed": "A generation job failed. data: the job with its error.",
  "page.updated": "A page's theme, SEO settings or status changed. data: the full page.",
  "page.deleted": "A page was deleted. data: the page summary.",
  "deployment.started": "A deployment started. data: the deployment.",
  "deployment.succeeded": "A deployment went live. data: the deployment.",
  "deployment.failed": "A deployment failed. data: the deployment with error_code and error_message.",
  "checkout.submitted": "A visitor posted the checkout form of a deployed page. data: the submission.",
  "webhook.test": "Sent by the test operation. data: { endpoint_id, message }.",
  "webhook.verification": "The verification challenge. data: { challenge }; answer 200 echoing it.",
};

/** Delivery statuses. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "skipped"] as const;
