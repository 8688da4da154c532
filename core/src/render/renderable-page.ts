import type { PageContent } from "../generation/content.js";
import type { CheckoutField } from "../generation/checkout-fields.js";
import type { GenerationProduct } from "../generation/generation-input.js";
import type { GlobalTheme, SeoConfig } from "./theme.js";

/** Everything the renderer needs to build a page: a snapshot, no storage access. */
export interface RenderablePage {
  id: string;
  slug: string;
  language: string;
  product: GenerationProduct;
  content: PageContent;
  global_theme: GlobalTheme;
  seo_config: SeoConfig;
  checkout_fields: CheckoutField[];
  /** Generated 1200x630 SVG in the current theme (see `storePageImages`): the hero of a product without photos. */
  hero_image_url: string | null;
  /** Generated 1200x630 PNG, the default Open Graph image (social networks take no SVG). */
  og_image_url?: string | null;
}

/** How a page is rendered. */
export interface RenderOptions {
  /** Where the checkout form posts; null in the builder preview, which shows the form disabled. */
  checkoutAction: string | null;
  /** Prefix for host-relative media URLs (`/media/...`), e.g. the public URL of the server. */
  assetBase?: string;
  /** Builder preview: a banner on top, and never indexed. */
  preview?: boolean;
}
