import { z } from "zod";
import { paginationSchema, timestampSchema } from "./resource-schemas.js";

const warning = z.object({ code: z.string(), message: z.string() });

export const jobSchema = z.object({
  job_id: z.uuid(),
  status: z.enum(["processing", "completed", "failed"]),
  step: z.enum(["analyzing_product", "writing_copy", "generating_images", "building_page", "done"]),
  step_detail: z.string(),
  page_id: z.uuid().nullable(),
  builder_url: z.url().nullable(),
  warnings: z.array(warning),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  completed_at: timestampSchema.nullable(),
});

const pageSummary = z.object({
  id: z.uuid(),
  slug: z.string(),
  status: z.enum(["draft", "published"]),
  product: z.object({ id: z.uuid(), title: z.string(), price: z.number() }),
  deployed_url: z.url().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

const pageFull = pageSummary.extend({
  product: z.object({ id: z.uuid(), title: z.string(), price: z.number(), currency: z.string(), product_type: z.enum(["physical", "service"]) }),
  global_theme: z.record(z.string(), z.string()),
  seo_config: z.record(z.string(), z.unknown()),
  language: z.string(),
  builder_url: z.url(),
});

export const jobResponse = z.object({ data: jobSchema });
export const pageAcceptedResponse = z.object({ data: z.object({ job_id: z.uuid(), poll_url: z.string() }) });
export const pageResponse = z.object({ data: pageFull });
export const pageListResponse = z.object({ data: z.array(pageSummary), pagination: paginationSchema });
