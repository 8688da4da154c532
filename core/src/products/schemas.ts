import { z } from "zod";
import { httpUrlSchema } from "../render/theme.js";

const money = z.number().finite("must be a finite number").min(0, "must not be negative").max(1_000_000_000, "is too large");
/** The text of a number: one digit run and an optional fraction, so no run of digits can be split two ways. */
const NUMBER_TEXT = /^\s*-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
/** Longest number text read; longer text is "must be a number" before any pattern sees it. */
const NUMBER_TEXT_MAX = 64;
/**
 * A multipart number: the text of a JSON number (white space around it allowed), then the same bounds as
 * JSON. Rendered as the number schema, so the document bounds multipart `price` exactly as JSON's.
 */
const moneyText = z.preprocess(
  (v) => (typeof v === "string" && v.length <= NUMBER_TEXT_MAX && NUMBER_TEXT.test(v) ? Number(v) : v),
  z.number({ error: "must be a number" }).min(0, "must not be negative").max(1_000_000_000, "is too large"),
);
const httpUrl = httpUrlSchema;

export const productTypeSchema = z.enum(["physical", "service"]);
export const MAX_IMAGES = 20;
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

// Trimmed, then at least one character: the document's `\S` pattern says "not blank" the same way.
const title = z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters").meta({ pattern: "\\S" });
const description = z.string().max(5000, "must be at most 5000 characters");

/** JSON body of `POST /products`. */
export const productCreateSchema = z.strictObject({
  title,
  description: description.nullable().optional(),
  price: money,
  original_price: money.nullable().optional(),
  delivery_price: money.nullable().optional(),
  product_type: productTypeSchema,
  images: z.array(httpUrl).max(MAX_IMAGES, `at most ${MAX_IMAGES} images`).optional().describe("Image URLs, kept as they are"),
});

const reorderItem = z.strictObject({ id: z.uuid(), display_order: z.number().int().min(0).max(10_000) });

/** JSON body of `PATCH /products/{id}`. */
export const productUpdateSchema = z.strictObject({
  title: title.optional(),
  description: description.nullable().optional(),
  price: money.optional(),
  original_price: money.nullable().optional(),
  delivery_price: money.nullable().optional(),
  product_type: productTypeSchema.optional(),
  images: z.array(httpUrl).max(MAX_IMAGES).optional().describe("Image URLs appended after the existing images"),
  remove_image_ids: z.array(z.uuid()).max(100).optional(),
  reorder_images: z.array(reorderItem).max(100).optional(),
});

const optionalText = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? null : v), schema.nullable().optional());
/**
 * A list field: repeated parts, a comma-separated part or a JSON array. An empty part is refused rather
 * than read as "no items": `images=` would otherwise change nothing while looking like it cleared the list.
 * URLs may hold commas, so an `images` part is cut only at a comma that starts another http(s) URL.
 */
const listField = <T extends z.ZodType>(item: T, separator: RegExp = /,/) =>
  z.preprocess((v, ctx) => {
    if (v === undefined) return undefined;
    const values = Array.isArray(v) ? v : [v];
    if (values.some((s) => String(s).trim() === "")) {
      ctx.addIssue({ code: "custom", message: "is an empty part; leave the field out instead", input: v });
      return z.NEVER;
    }
    return values.flatMap((s) => (typeof s === "string" && s.trim().startsWith("[") ? safeJson(s) : String(s).split(separator).map((x) => x.trim()).filter(Boolean)));
  }, z.array(item).optional());

const urlSeparator = /,(?=\s*https?:\/\/)/;

/** Multipart fields of `POST /products`: numbers arrive as strings, files come separately. */
export const productCreateMultipartSchema = z.strictObject({
  title,
  description: optionalText(description),
  price: moneyText,
  original_price: optionalText(moneyText),
  delivery_price: optionalText(moneyText),
  product_type: productTypeSchema,
  images: listField(httpUrl, urlSeparator),
});

/** Multipart fields of `PATCH /products/{id}`; an empty `description` clears it. */
export const productUpdateMultipartSchema = z.strictObject({
  title: title.optional(),
  description: optionalText(description),
  price: moneyText.optional(),
  original_price: optionalText(moneyText),
  delivery_price: optionalText(moneyText),
  product_type: productTypeSchema.optional(),
  images: listField(httpUrl, urlSeparator),
  remove_image_ids: listField(z.uuid()),
  reorder_images: z.preprocess((v, ctx) => {
    if (typeof v === "string" && v.trim() === "") {
      ctx.addIssue({ code: "custom", message: "is an empty part; leave the field out instead", input: v });
      return z.NEVER;
    }
    return typeof v === "string" ? safeJson(v) : v;
  }, z.array(reorderItem).optional()),
});

export const productListQuerySchema = z.object({
  product_type: productTypeSchema.optional(),
  q: z.string().max(200).optional().describe("Case-insensitive substring of the title or description"),
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export type ProductCreateInput = z.output<typeof productCreateSchema>;
export type ProductUpdateInput = z.output<typeof productUpdateSchema>;
