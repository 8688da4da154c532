import type { productCreateSchema, productUpdateSchema } from "@lp/core";
import type { z } from "zod";
import type { CreatedRange, ListQuery, SortOf, Timestamp } from "./common.js";

/** A product image (spec: Product image). */
export interface ProductImage {
  id: string;
  url: string;
  media_type: string;
  display_order: number;
  created_at: Timestamp;
}

/** A product as list items show it: without `images`. */
export interface ProductSummary {
  id: string;
  title: string;
  description: string | null;
  price: number;
  original_price: number | null;
  delivery_price: number | null;
  /** The first image by display order, else a generated placeholder. Always set. */
  preview_image_url: string;
  product_type: "physical" | "service";
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A product as create, get and update return it: with its images in display order. */
export interface Product extends ProductSummary {
  images: ProductImage[];
}

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
