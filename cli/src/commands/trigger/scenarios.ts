import type { EventType } from "../../runtime/events.js";

/** One call (or short sequence of calls) to the API that a scenario makes, in order. */
export type Step =
  | { kind: "product" }
  | { kind: "product_update" }
  | { kind: "product_delete" }
  | { kind: "page"; simulate?: "generation_failed" }
  | { kind: "page_update" }
  | { kind: "page_delete" }
  | { kind: "deploy"; wait: boolean; simulate?: "deployment_failed" }
  | { kind: "checkout" };

/** How `lp trigger` causes one event: what it says it does, and the steps. */
export interface Scenario {
  summary: string;
  steps: Step[];
}

const product: Step = { kind: "product" };
const page: Step = { kind: "page" };
const deployed: Step = { kind: "deploy", wait: true };

/**
 * Every event of the catalogue and the real API calls that cause it. Earlier steps cause their own
 * events too (a page needs a product: `product.created` comes first), as they would in production.
 */
export const SCENARIOS: Record<EventType, Scenario> = {
  "product.created": { summary: "creates a product", steps: [product] },
  "product.updated": { summary: "creates a product, then updates it (product_update)", steps: [product, { kind: "product_update" }] },
  "product.deleted": { summary: "creates a product, then deletes it", steps: [product, { kind: "product_delete" }] },
  "page.created": { summary: "creates a product and generates a page for it (waits for the job)", steps: [product, page] },
  "page.generation_failed": {
    summary: "creates a product and starts a generation that fails (Lp-Simulate: generation_failed)",
    steps: [product, { kind: "page", simulate: "generation_failed" }],
  },
  "page.updated": { summary: "creates a product and a page, then patches the page's theme and SEO (page_update)", steps: [product, page, { kind: "page_update" }] },
  "page.deleted": { summary: "creates a product and a page, then deletes the page", steps: [product, page, { kind: "page_delete" }] },
  "deployment.started": { summary: "creates a product and a page, then starts a deployment (does not wait)", steps: [product, page, { kind: "deploy", wait: false }] },
  "deployment.succeeded": { summary: "creates a product and a page, deploys it and waits until it is live", steps: [product, page, deployed] },
  "deployment.failed": {
    summary: "creates a product and a page, and deploys it with Lp-Simulate: deployment_failed",
    steps: [product, page, { kind: "deploy", wait: true, simulate: "deployment_failed" }],
  },
  "checkout.submitted": {
    summary: "creates a product and a page, deploys it, then posts the live site's checkout form (checkout)",
    steps: [product, page, deployed, { kind: "checkout" }],
  },
};
