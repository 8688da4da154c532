import type { pageCreateSchema, pageUpdateSchema } from "@lp/core";
import type { z } from "zod";
import type { CreatedRange, ListQuery, SortOf, Timestamp } from "./common.js";

/** Body of `pages.create`: exactly one of `product` (inline) and `product_id`. */
export type PageCreateInput = z.input<typeof pageCreateSchema>;

/** Body of `pages.update`: JSON Merge Patch of `global_theme` and `seo_config` (null removes a key). */
export type PageUpdateInput = z.input<typeof pageUpdateSchema>;

/** A checkout field as given on page creation. */
export type CheckoutFieldInput = NonNullable<PageCreateInput["checkout_fields"]>[number];

/** The 202 answer of `pages.create`. */
export interface PageCreateAccepted {
  job_id: string;
  /** Path of the job resource: `/v1/accounts/{account_id}/pages/jobs/{job_id}`. */
  poll_url: string;
}

/** A page as list items show it. */
export interface PageSummary {
  id: string;
  slug: string;
  /** `draft`, then `published` after the first successful deployment. */
  status: string;
  product: { id: string; title: string; price: number };
  deployed_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Theme keys of a page (camelCase, as on the wire). */
export interface GlobalTheme {
  currency?: string;
  primaryColor?: string;
  secondaryColor?: string;
  accentColor?: string;
  backgroundColor?: string;
  textColor?: string;
  fontFamily?: string;
  [key: string]: unknown;
}

/** SEO keys of a page. */
export interface SeoConfig {
  title?: string;
  description?: string;
  keywords?: string | string[];
  ogImage?: string;
  canonicalUrl?: string;
  noindex?: boolean;
  [key: string]: unknown;
}

/** A page as get and update return it. */
export interface Page extends Omit<PageSummary, "product"> {
  product: PageSummary["product"] & { currency: string; product_type: "physical" | "service" };
  global_theme: GlobalTheme;
  seo_config: SeoConfig;
  [key: string]: unknown;
}

/** Query of `pages.list`. */
export interface PageListQuery extends ListQuery, CreatedRange {
  status?: string;
  product_id?: string;
  /** Case-insensitive substring of the slug or the product title. */
  q?: string;
  sort?: SortOf<"created_at" | "updated_at" | "slug">;
}

/** A warning or error item of a job: `{ code, message }`. */
export interface CodedMessage {
  code: string;
  message: string;
}

/** A page generation job (spec: Page generation job). */
export interface Job {
  job_id: string;
  status: "processing" | "completed" | "failed";
  /** `analyzing_product`, `writing_copy`, `generating_images`, `building_page`, `done`. */
  step: string;
  step_detail: string;
  page_id: string | null;
  builder_url: string | null;
  warnings: CodedMessage[];
  error: CodedMessage | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
}
