/** Rows of products and their images (migration 0002), and their accounts' totals (0007). */
export interface ProductTables {
  products: {
    id: string;
    account_id: string;
    title: string;
    description: string | null;
    price: number;
    original_price: number | null;
    delivery_price: number | null;
    product_type: string;
    /** JSON: the checkout fields page generation settled on for the product, or null. */
    checkout_fields: string | null;
    /** What `q` searches: the title, a line break and the description, lowercased as JavaScript does. */
    search_text: string;
    /** Bytes of the product's uploaded images (the sum of its images' `bytes`), counted by the media quota. */
    media_bytes: number;
    created_at: string;
    updated_at: string;
    deleted_at: string | null;
  };
  product_images: {
    id: string;
    product_id: string;
    url: string;
    media_type: string;
    display_order: number;
    /** Where an uploaded image's bytes are in the media store; null for an image given as a URL. */
    media_path: string | null;
    /** An upload's size, counted against the account's media quota; null for an image given as a URL. */
    bytes: number | null;
    created_at: string;
  };
  /** What an account's products not deleted take of its quotas, kept by triggers on `products` (migration 0007). */
  product_totals: {
    account_id: string;
    products: number;
    media_bytes: number;
  };
}
