import type { Job, Page, PageSummary } from "@lp/contract";
import type { PageContent } from "../generation/content.js";
import type { CheckoutField } from "../generation/checkout-fields.js";
import type { GenerationProduct } from "../generation/generation-input.js";
import type { GlobalTheme, SeoConfig } from "../render/theme.js";
import type { StoredJob } from "./page-repository.js";

/** A page as stored: its components (content sections), route (slug), theme and SEO. */
export interface PageRecord {
  id: string;
  account_id: string;
  slug: string;
  status: "draft" | "published";
  language: string;
  /** The product as it was when the page was generated: the page is a snapshot, regenerated to refresh. */
  product: GenerationProduct & { id: string };
  content: PageContent;
  global_theme: GlobalTheme;
  seo_config: SeoConfig;
  checkout_fields: CheckoutField[];
  hero_image_url: string | null;
  deployed_url: string | null;
  job_id: string;
  created_at: string;
  updated_at: string;
}

/** A generation job as stored: the API's fields, with its owner and what was asked. */
export interface JobRecord extends Job {
  account_id: string;
  /** What was asked, kept so the job can run from storage alone. */
  request: {
    product_id: string;
    language: string;
    marketing_angle: string | null;
    design: Record<string, string | undefined>;
    checkout_fields: CheckoutField[] | null;
    simulate: string | null;
  };
  /** When each step began (ISO times by step name); absent in records written before it was kept. */
  step_times?: Partial<Record<Job["step"], string>>;
}

/** The job as the API returns it (spec: Page generation job). */
export function toJobView(job: JobRecord): Job {
  return {
    job_id: job.job_id,
    status: job.status,
    step: job.step,
    step_detail: job.step_detail,
    page_id: job.page_id,
    builder_url: job.builder_url,
    warnings: job.warnings,
    error: job.error,
    created_at: job.created_at,
    updated_at: job.updated_at,
    completed_at: job.completed_at,
  };
}

/** The page as list items show it. */
export function toPageSummary(page: PageRecord): PageSummary {
  return {
    id: page.id,
    slug: page.slug,
    status: page.status,
    product: { id: page.product.id, title: page.product.title, price: page.product.price },
    deployed_url: page.deployed_url,
    created_at: page.created_at,
    updated_at: page.updated_at,
  };
}

/** The page as get and update return it. */
export function toPageView(page: PageRecord, builderUrl: string): Page {
  const summary = toPageSummary(page);
  return {
    ...summary,
    product: { ...summary.product, currency: page.global_theme.currency, product_type: page.product.product_type },
    global_theme: page.global_theme,
    seo_config: page.seo_config,
    language: page.language,
    builder_url: builderUrl,
  };
}

/**
 * A stored job as the API returns it. While a job is processing its row may already name the page it is
 * drawing (so a run cut short can remove that page's images), but the job shows a page only once it is
 * completed with it; `builder_url` is signed at every answer, never stored.
 */
export function toJobAnswer(job: StoredJob, builderUrl: (pageId: string) => string): Job {
  const pageId = job.status === "completed" ? job.page_id : null;
  return toJobView({ ...job, page_id: pageId, builder_url: pageId ? builderUrl(pageId) : null });
}
