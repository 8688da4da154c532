import type { Product, ProductImage, ProductSummary } from "@lp/contract";
import type { GenerationProduct } from "../generation/generation-input.js";

/**
 * An image of a product as stored: the wire's fields, `media_path` for uploads kept in the media store, and
 * their size (counted against the account's media quota; absent on images given as URLs).
 */
export interface ProductImageRecord extends ProductImage {
  media_path: string | null;
  bytes?: number;
}

/** A checkout field as it belongs to a product (shared by every page of it). */
export interface StoredCheckoutField {
  field_key: string;
  label: string;
  field_type: "text" | "tel" | "email" | "date" | "textarea" | "select";
  is_required: boolean;
  options: string[];
}

/**
 * A product as stored: the wire's fields (but `preview_image_url`, derived on the way out), with its owner,
 * its images' storage paths, its checkout fields and the soft-delete mark.
 */
export interface ProductRecord extends Omit<ProductSummary, "preview_image_url"> {
  account_id: string;
  images: ProductImageRecord[];
  checkout_fields: StoredCheckoutField[] | null;
  deleted_at: string | null;
}

/** Images in display order; ties keep their creation order. */
export function sortImages(images: ProductImageRecord[]): ProductImageRecord[] {
  return [...images].sort((a, b) => a.display_order - b.display_order || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** The placeholder image shown for a product without images. */
export function placeholderUrl(publicUrl: string, product: Pick<ProductRecord, "account_id" | "id">): string {
  return `${publicUrl}/media/placeholders/${product.account_id}/${product.id}.svg`;
}

/** The product as a page keeps it: what generation and rendering read, images in display order. */
export function toProductSnapshot(product: ProductRecord): GenerationProduct & { id: string } {
  const { id, title, description, price, original_price, delivery_price, product_type } = product;
  const images = sortImages(product.images).map((i) => ({ url: i.url, media_type: i.media_type }));
  return { id, title, description, price, original_price, delivery_price, product_type, images };
}

/** The product as list items show it: without `images`. */
export function toProductSummary(product: ProductRecord, publicUrl: string): ProductSummary {
  const images = sortImages(product.images);
  return {
    id: product.id,
    title: product.title,
    description: product.description,
    price: product.price,
    original_price: product.original_price,
    delivery_price: product.delivery_price,
    preview_image_url: images[0]?.url ?? placeholderUrl(publicUrl, product),
    product_type: product.product_type,
    created_at: product.created_at,
    updated_at: product.updated_at,
  };
}

/** The product as create, get and update return it: with its images in display order. */
export function toProductView(product: ProductRecord, publicUrl: string): Product {
  return {
    ...toProductSummary(product, publicUrl),
    images: sortImages(product.images).map((i) => ({ id: i.id, url: i.url, media_type: i.media_type, display_order: i.display_order, created_at: i.created_at })),
  };
}

/** The product as the API returns it (`productSchema` of @lp/contract). */
export type ProductView = Product;
