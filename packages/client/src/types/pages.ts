import type { pageCreateSchema, pageUpdateSchema } from "@lp/core";
import type { z } from "zod";
import type { CreatedRange, ListQuery, SortOf } from "./common.js";

/** Body of `pages.create`: exactly one of `product` (inline) and `product_id`. */
export type PageCreateInput = z.input<typeof pageCreateSchema>;

/** Body of `pages.update`: JSON Merge Patch of `global_theme` and `seo_config` (null removes a key). */
export type PageUpdateInput = z.input<typeof pageUpdateSchema>;

/** A checkout field as given on page creation. */
export type CheckoutFieldInput = NonNullable<PageCreateInput["checkout_fields"]>[number];

/** Pages, jobs and their parts as the API returns them (from @lp/contract). */
export type { PageCreateAccepted, PageSummary, GlobalTheme, SeoConfig, Page, CodedMessage, Job } from "@lp/contract";

/** Query of `pages.list`. */
export interface PageListQuery extends ListQuery, CreatedRange {
  status?: string;
  product_id?: string;
  /** Case-insensitive substring of the slug or the product title. */
  q?: string;
  sort?: SortOf<"created_at" | "updated_at" | "slug">;
}
