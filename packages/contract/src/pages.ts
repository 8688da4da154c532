import { z } from "zod";
import { dataOf, listOf, timestampSchema } from "./common.js";

/** A warning or error item of a job. */
export const codedMessageSchema = z.object({ code: z.string(), message: z.string() });

/** A page generation job (spec: Page generation job). */
export const jobSchema = z.object({
  job_id: z.uuid(),
  status: z.enum(["processing", "completed", "failed"]),
  step: z.enum(["analyzing_product", "writing_copy", "generating_images", "building_page", "done"]),
  step_detail: z.string(),
  page_id: z.uuid().nullable(),
  builder_url: z.url().nullable(),
  warnings: z.array(codedMessageSchema),
  error: codedMessageSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  completed_at: timestampSchema.nullable(),
});

/** A page as list items show it. */
export const pageSummarySchema = z.object({
  id: z.uuid(),
  slug: z.string(),
  status: z.enum(["draft", "published"]).describe("draft, then published after the first successful deployment"),
  product: z.object({ id: z.uuid(), title: z.string(), price: z.number() }),
  deployed_url: z.url().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

/** A page's theme: every key is always present (camelCase, as on the wire). */
export const globalThemeSchema = z.object({
  currency: z.string(),
  primaryColor: z.string(),
  secondaryColor: z.string(),
  accentColor: z.string(),
  backgroundColor: z.string(),
  textColor: z.string(),
  fontFamily: z.string(),
});

/** A page's SEO settings; every key is optional. */
export const seoConfigSchema = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  keywords: z.union([z.array(z.string()), z.string()]).optional(),
  ogImage: z.string().optional(),
  canonicalUrl: z.string().optional(),
  noindex: z.boolean().optional(),
});

/** A page as get and update return it. */
export const pageSchema = pageSummarySchema.extend({
  product: pageSummarySchema.shape.product.extend({ currency: z.string(), product_type: z.enum(["physical", "service"]) }),
  global_theme: globalThemeSchema,
  seo_config: seoConfigSchema,
  language: z.string(),
  builder_url: z.url(),
});

/** The 202 answer of page creation. */
export const pageAcceptedSchema = z.object({
  job_id: z.uuid(),
  poll_url: z.string().describe("Path of the job resource: /v1/accounts/{account_id}/pages/jobs/{job_id}"),
});

export const jobResponse = dataOf(jobSchema);
export const pageAcceptedResponse = dataOf(pageAcceptedSchema);
export const pageResponse = dataOf(pageSchema);
export const pageListResponse = listOf(pageSummarySchema);

export type CodedMessage = z.infer<typeof codedMessageSchema>;
export type Job = z.infer<typeof jobSchema>;
export type PageSummary = z.infer<typeof pageSummarySchema>;
export type GlobalTheme = z.infer<typeof globalThemeSchema>;
export type SeoConfig = z.infer<typeof seoConfigSchema>;
export type Page = z.infer<typeof pageSchema>;
export type PageCreateAccepted = z.infer<typeof pageAcceptedSchema>;
