// The sample `data` of each event type lp sends, shaped as lp's API returns the resource: `checkReceiver`
// sends these so that a receiver sees a real event, not `{}`. The keys of SAMPLES are this package's only
// spelling of the event names; the catalogue of `@lp/contract/events` is the source of truth, and
// sample-events.test.ts fails (at type check and at run time) when the two differ. This package may not
// depend on the contract at run time, so it cannot import the list.

const AT = "2026-03-01T10:00:00.000Z";
const PRODUCT_ID = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
const PAGE_ID = "2b7e9c41-5d6a-4f8b-9c0d-1e2f3a4b5c6d";
const JOB_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const DEPLOYMENT_ID = "4c3d2e1f-0a9b-4c8d-9e7f-6a5b4c3d2e1f";
const BASE = "https://lp.example.com";
const SITE = `${BASE}/sites/acct_dev/linen-apron/`;

// Non-ASCII text on purpose: a receiver that reads the body as latin1, or re-encodes it, fails to verify.
function product(): Record<string, unknown> {
  return {
    id: PRODUCT_ID,
    title: "Linen apron — stonewashed",
    description: "Heavy linen, adjustable strap, a front pocket. Crème or ardoise.",
    price: 42,
    original_price: 49,
    delivery_price: 4.5,
    preview_image_url: `${BASE}/media/acct_dev/apron.png`,
    product_type: "physical",
    created_at: AT,
    updated_at: AT,
    images: [
      { id: "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", url: `${BASE}/media/acct_dev/apron.png`, media_type: "image/png", display_order: 0, created_at: AT },
    ],
  };
}

function pageSummary(status: "draft" | "published"): Record<string, unknown> {
  return {
    id: PAGE_ID,
    slug: "linen-apron",
    status,
    product: { id: PRODUCT_ID, title: "Linen apron — stonewashed", price: 42 },
    deployed_url: status === "published" ? SITE : null,
    created_at: AT,
    updated_at: AT,
  };
}

function page(status: "draft" | "published"): Record<string, unknown> {
  const summary = pageSummary(status);
  return {
    ...summary,
    product: { ...(summary.product as object), currency: "EUR", product_type: "physical" },
    global_theme: {
      currency: "EUR",
      primaryColor: "#5d7a5a",
      secondaryColor: "#f4efe6",
      accentColor: "#c8553d",
      backgroundColor: "#ffffff",
      textColor: "#1f2421",
      fontFamily: "Inter, system-ui, sans-serif",
    },
    seo_config: { title: "Linen apron — stonewashed", description: "Heavy linen apron with a front pocket." },
    language: "en",
    builder_url: `${BASE}/builder/${PAGE_ID}`,
  };
}

function deployment(status: "deploying" | "succeeded" | "failed"): Record<string, unknown> {
  return {
    id: DEPLOYMENT_ID,
    page_id: PAGE_ID,
    status,
    deploy_step: status === "deploying" ? "rendering" : status === "failed" ? "uploading" : null,
    error_code: status === "failed" ? "render_failed" : null,
    error_message: status === "failed" ? "The page could not be rendered." : null,
    deployed_url: status === "succeeded" ? SITE : null,
    deployed_at: status === "succeeded" ? AT : null,
    created_at: AT,
    updated_at: AT,
  };
}

const SAMPLES = {
  "product.created": product,
  "product.updated": () => ({ ...product(), price: 39 }),
  "product.deleted": product,
  "page.created": () => page("draft"),
  "page.generation_failed": () => ({
    job_id: JOB_ID,
    status: "failed",
    step: "writing_copy",
    step_detail: "Writing the copy",
    page_id: null,
    builder_url: null,
    warnings: [],
    error: { code: "generation_failed", message: "The generator did not answer." },
    created_at: AT,
    updated_at: AT,
    completed_at: null,
  }),
  "page.updated": () => page("published"),
  "page.deleted": () => pageSummary("published"),
  "deployment.started": () => deployment("deploying"),
  "deployment.succeeded": () => deployment("succeeded"),
  "deployment.failed": () => deployment("failed"),
  "checkout.submitted": () => ({
    id: "7e6d5c4b-3a2f-4e1d-8c0b-9a8f7e6d5c4b",
    page_id: PAGE_ID,
    deployment_id: DEPLOYMENT_ID,
    values: { name: "Ada Lovelace", email: "ada@example.com", address: "12 Example Street, Zürich" },
    created_at: AT,
  }),
  "webhook.test": () => ({ endpoint_id: "we_sample", message: "This is a test delivery from lp." }),
} satisfies Record<string, () => unknown>;

/** An event type {@link sampleEventData} has a sample for. */
export type SampleEventType = keyof typeof SAMPLES;

/**
 * The event types lp sends, with one sample `data` each: the catalogue of `@lp/contract/events` but for
 * `webhook.verification`, which is a challenge rather than an event.
 */
export const SAMPLE_EVENT_TYPES = Object.keys(SAMPLES) as readonly SampleEventType[];

/** True when `type` is one of {@link SAMPLE_EVENT_TYPES}. */
export function isSampleEventType(type: string): type is SampleEventType {
  return (SAMPLE_EVENT_TYPES as readonly string[]).includes(type);
}

/** A fresh copy of the sample `data` of `type`, shaped as lp sends it. */
export function sampleEventData(type: SampleEventType): unknown {
  return SAMPLES[type]();
}
