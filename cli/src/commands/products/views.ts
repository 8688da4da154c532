import type { Product, ProductSummary } from "@lp/client";
import type { Column } from "../../runtime/table.js";

/** Columns of `lp products list`. */
export const productColumns: Column<ProductSummary>[] = [
  ["id", (p) => p.id],
  ["title", (p) => p.title],
  ["type", (p) => p.product_type],
  ["price", (p) => p.price],
  ["created", (p) => p.created_at],
];

/** Fields of one product. */
export const productFields: Column<Product>[] = [
  ["id", (p) => p.id],
  ["title", (p) => p.title],
  ["type", (p) => p.product_type],
  ["price", (p) => p.price],
  ["original_price", (p) => p.original_price],
  ["delivery_price", (p) => p.delivery_price],
  ["description", (p) => p.description],
  ["preview_image", (p) => p.preview_image_url],
  ["images", (p) => (p.images ?? []).map((i) => `${i.display_order}: ${i.id} ${i.url}`)],
  ["created", (p) => p.created_at],
  ["updated", (p) => p.updated_at],
];
