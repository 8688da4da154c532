import type { productCreateSchema, productUpdateSchema } from "@lp/core";
import type { z } from "zod";
import type { CreatedRange, ListQuery, SortOf } from "./common.js";

/** A product, as list items and as single answers show it, and its images (from @lp/contract). */
export type { ProductImage, ProductSummary, Product } from "@lp/contract";

/**
 * An image to attach: a URL (kept as is) or a `Blob`/`File` (uploaded as multipart). Use
 * `imageFromFile(path)` for a local file.
 */
export type ImageInput = string | Blob;

/** Body of `products.create`: the JSON schema's input, with files allowed among `images`. */
export type ProductCreateInput = Omit<z.input<typeof productCreateSchema>, "images"> & { images?: ImageInput[] };

/** Body of `products.update`: every field optional; new images are appended. */
export type ProductUpdateInput = Omit<z.input<typeof productUpdateSchema>, "images"> & { images?: ImageInput[] };

/** Query of `products.list`. */
export interface ProductListQuery extends ListQuery, CreatedRange {
  product_type?: "physical" | "service";
  /** Case-insensitive substring of the title or description. */
  q?: string;
  sort?: SortOf<"created_at" | "updated_at" | "title" | "price">;
}
