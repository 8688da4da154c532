import type { EventType } from "@lp/contract/events";

/**
 * One real API call (or call and wait) that a scenario makes. `page_failed` and `deploy_failed` send
 * `Lp-Simulate` so the work fails; `deploy_started` does not wait for the deployment to settle.
 */
export type TriggerStep =
  | "product"
  | "product_update"
  | "product_delete"
  | "page"
  | "page_failed"
  | "page_update"
  | "page_delete"
  | "deploy_started"
  | "deploy"
  | "deploy_failed"
  | "checkout";

/** The sections of the `lp trigger` fixture (fixtures/trigger.json). */
export type FixtureSection = "product" | "product_update" | "page" | "page_update" | "checkout";

/** How the console causes one event: what it says it does, and its steps, as `lp trigger` does. */
export interface TriggerScenario {
  summary: string;
  steps: TriggerStep[];
}

/**
 * Every event of the catalogue and the calls that cause it, the same sequences `lp trigger` runs
 * (cli/src/commands/trigger/scenarios.ts): earlier steps cause their own events too, as in production.
 * Shared by the server side (which runs them) and the UI (which shows the fixture sections they read).
 */
export const TRIGGER_SCENARIOS: Record<EventType, TriggerScenario> = {
  "product.created": { summary: "creates a product (product)", steps: ["product"] },
  "product.updated": { summary: "creates a product, then updates it (product_update)", steps: ["product", "product_update"] },
  "product.deleted": { summary: "creates a product, then deletes it", steps: ["product", "product_delete"] },
  "page.created": { summary: "creates a product and generates a page for it (page), waiting for the job", steps: ["product", "page"] },
  "page.generation_failed": { summary: "creates a product and starts a generation that fails (Lp-Simulate: generation_failed)", steps: ["product", "page_failed"] },
  "page.updated": { summary: "creates a product and a page, then patches the page (page_update)", steps: ["product", "page", "page_update"] },
  "page.deleted": { summary: "creates a product and a page, then deletes the page", steps: ["product", "page", "page_delete"] },
  "deployment.started": { summary: "creates a product and a page, then starts a deployment (without waiting)", steps: ["product", "page", "deploy_started"] },
  "deployment.succeeded": { summary: "creates a product and a page, deploys it and waits until it is live", steps: ["product", "page", "deploy"] },
  "deployment.failed": { summary: "creates a product and a page, and deploys it with Lp-Simulate: deployment_failed", steps: ["product", "page", "deploy_failed"] },
  "checkout.submitted": { summary: "creates a product and a page, deploys it, then posts the live site's checkout form (checkout)", steps: ["product", "page", "deploy", "checkout"] },
};

const SECTION_OF: Partial<Record<TriggerStep, FixtureSection>> = {
  product: "product",
  product_update: "product_update",
  page: "page",
  page_failed: "page",
  page_update: "page_update",
  checkout: "checkout",
};

/** The fixture sections a scenario's steps read, in step order. */
export function sectionsOf(scenario: TriggerScenario): FixtureSection[] {
  return [...new Set(scenario.steps.map((s) => SECTION_OF[s]).filter((s): s is FixtureSection => s !== undefined))];
}
