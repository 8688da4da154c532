import { z } from "zod";
import { timestampSchema } from "./common.js";
import { deploymentSchema } from "./deployments.js";
import type { AnyEventType } from "./events.js";
import { jobSchema, pageSchema, pageSummarySchema } from "./pages.js";
import { productSchema } from "./products.js";

/** `data` of `checkout.submitted`: what a visitor posted on a deployed page. */
export const checkoutSubmissionSchema = z.object({
  id: z.uuid(),
  page_id: z.uuid(),
  deployment_id: z.uuid(),
  values: z.record(z.string(), z.string()).describe("Submitted values by field_key"),
  created_at: timestampSchema,
});

/** `data` of each event type: the resource as the API returns it. */
export const EVENT_DATA_SCHEMAS = {
  "product.created": productSchema,
  "product.updated": productSchema,
  "product.deleted": productSchema,
  "page.created": pageSchema,
  "page.generation_failed": jobSchema,
  "page.updated": pageSchema,
  "page.deleted": pageSummarySchema,
  "deployment.started": deploymentSchema,
  "deployment.succeeded": deploymentSchema,
  "deployment.failed": deploymentSchema,
  "checkout.submitted": checkoutSubmissionSchema,
  "webhook.test": z.object({ endpoint_id: z.string(), message: z.string() }),
  "webhook.verification": z.object({ challenge: z.string() }),
} satisfies Record<AnyEventType, z.ZodType>;

/** The `data` of an event of type `T`. */
export type EventData<T extends AnyEventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;
export type CheckoutSubmission = z.infer<typeof checkoutSubmissionSchema>;
