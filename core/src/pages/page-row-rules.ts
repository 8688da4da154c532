import { jobSchema, pageSummarySchema } from "@lp/contract";
import type { ColumnRule, JsonShape } from "../db/unreadable-rows.js";
import { checkoutFieldTypes } from "../generation/checkout-fields.js";

/*
 * What the rows of pages and generation jobs must hold to be read as their resource (SQLite keeps whatever
 * a hand edit puts in a column; PostgreSQL any JSON in a JSON column). The JSON documents are checked as far
 * as a read, a list, the renderer and the API's answer rely on them: their kind, the fields they show, a
 * section's type and id; the copy inside a section is the renderer's to cope with.
 */

/** The product a page was generated from, as the renderer takes it (a deployment's files hold it without its id). */
export const PRODUCT_SNAPSHOT_SHAPE: JsonShape = {
  what: "a product",
  fields: {
    title: "text",
    description: "text?",
    price: "number",
    original_price: "number?",
    delivery_price: "number?",
    product_type: ["physical", "service"],
    images: { what: "a list of images", nullable: true, items: { what: "an image", fields: { url: "text", media_type: "text?" } } },
  },
};

/** A page's product: the snapshot and its id. */
const PAGE_PRODUCT_SHAPE: JsonShape = { what: "a product", fields: { ...PRODUCT_SNAPSHOT_SHAPE.fields, id: "text" } };

/** A page's content: its sections, each with a type and an id (the renderer adds a hero and a form that are missing). */
export const PAGE_CONTENT_SHAPE: JsonShape = {
  what: "page content",
  fields: {
    language: "text?",
    headline: "text?",
    subheadline: "text?",
    sections: { what: "a list of sections", nullable: true, items: { what: "a section", fields: { type: "text", id: "text" } } },
  },
};

/** A page's theme: every key text (the renderer replaces a value that is not a colour or a font stack). */
export const GLOBAL_THEME_SHAPE: JsonShape = {
  what: "a theme",
  fields: { currency: "text", primaryColor: "text", secondaryColor: "text", accentColor: "text", backgroundColor: "text", textColor: "text", fontFamily: "text" },
};

const isKeywords = (value: unknown) => value === undefined || typeof value === "string" || (Array.isArray(value) && value.every((k) => typeof k === "string"));

/** A page's SEO settings: every key optional. */
export const SEO_CONFIG_SHAPE: JsonShape = {
  what: "SEO settings",
  fields: { title: "text?", description: "text?", ogImage: "text?", canonicalUrl: "text?", noindex: "boolean?" },
  is: (value) => isKeywords((value as { keywords?: unknown }).keywords),
};

/** A page's checkout form. */
export const CHECKOUT_FIELDS_SHAPE: JsonShape = {
  what: "a list of checkout fields",
  items: { what: "a checkout field", fields: { field_key: "text", label: "text?", field_type: [...checkoutFieldTypes], is_required: "boolean?", options: "list?" } },
};

/** A page row's own columns (beside its JSON documents). */
export const PAGE_RULES: Record<string, ColumnRule> = {
  account_id: "text",
  slug: "text",
  status: pageSummarySchema.shape.status.options,
  language: "text",
  hero_image_url: "text?",
  deployed_url: "text?",
  job_id: "text",
  created_at: "text",
  updated_at: "text",
};

/** What a page's row must hold, by JSON column. */
export const PAGE_DOCUMENTS = {
  product: PAGE_PRODUCT_SHAPE,
  content: PAGE_CONTENT_SHAPE,
  global_theme: GLOBAL_THEME_SHAPE,
  seo_config: SEO_CONFIG_SHAPE,
  checkout_fields: CHECKOUT_FIELDS_SHAPE,
} as const satisfies Record<string, JsonShape>;

/** What the columns a page's list item shows must hold. */
export const PAGE_LISTED_RULES: Record<string, ColumnRule> = {
  slug: "text",
  status: PAGE_RULES.status!,
  deployed_url: "text?",
  created_at: "text",
  updated_at: "text",
};

/** A page's product as its list item shows it (its id, title and price). */
export const LISTED_PRODUCT_SHAPE: JsonShape = { what: "a product", fields: { id: "text", title: "text", price: "number" } };

/** A job row's own columns. */
export const JOB_RULES: Record<string, ColumnRule> = {
  account_id: "text",
  status: jobSchema.shape.status.options,
  step: jobSchema.shape.step.options,
  step_detail: "text",
  page_id: "text?",
  error_code: "text?",
  error_message: "text?",
  created_at: "text",
  updated_at: "text",
  completed_at: "text?",
};

/** When each step of a job or a deployment began, by step name. */
export const STEP_TIMES_SHAPE: JsonShape = { what: "the steps' times", fields: {}, is: (value) => Object.values(value as object).every((at) => typeof at === "string") };

/** A page as a deployment rendered it (its files keep it: what the checkout form is checked against). */
export const RENDERABLE_PAGE_SHAPE: JsonShape = {
  what: "a rendered page",
  fields: {
    id: "text",
    slug: "text?",
    language: "text?",
    product: PRODUCT_SNAPSHOT_SHAPE,
    content: PAGE_CONTENT_SHAPE,
    global_theme: GLOBAL_THEME_SHAPE,
    seo_config: SEO_CONFIG_SHAPE,
    checkout_fields: CHECKOUT_FIELDS_SHAPE,
    hero_image_url: "text?",
    og_image_url: "text?",
  },
};

/** What a job's row must hold, by JSON column (a job an older lp wrote may know less of its request). */
export const JOB_DOCUMENTS = {
  request: {
    what: "a job's request",
    fields: { product_id: "text", language: "text?", marketing_angle: "text?", design: "object?", checkout_fields: "list?", simulate: "text?" },
  },
  warnings: { what: "a list of warnings", items: { what: "a warning", fields: { code: "text", message: "text" } } },
  step_times: STEP_TIMES_SHAPE,
} as const satisfies Record<string, JsonShape>;
