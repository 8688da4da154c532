import { createHash } from "node:crypto";
import type { MediaStore } from "../media/media-store.js";
import { toLangAttribute } from "../render/escape.js";
import { toGlobalTheme } from "../render/theme.js";
import type { PageContent } from "./content.js";
import type { GenerationProduct } from "./generation-input.js";
import { createHeroSvg } from "./images.js";

/** What the generated images are drawn from: the page as it stands now. */
export interface PageImageSource {
  id: string;
  language: string;
  product: GenerationProduct;
  content: PageContent;
  global_theme: unknown;
}

/** Media URLs of a page's generated images. */
export interface PageImageUrls {
  hero_image_url: string;
  /** Null when the PNG could not be drawn: the page then falls back to a product image. */
  og_image_url: string | null;
}

/** The hero SVG in the page's current theme and language. */
export function createPageSvgs(page: PageImageSource): { hero: string } {
  const theme = toGlobalTheme(page.global_theme);
  const language = toLangAttribute(page.language ?? page.content?.language);
  return { hero: createHeroSvg({ title: page.product.title, product_type: page.product.product_type, theme, language }) };
}

/**
 * Draws the page's hero picture as it stands (theme colours and font) and stores it if it is new. Paths
 * carry a hash of the picture, so an unchanged page reuses its files, a changed one gets new addresses
 * that no cache has seen, and a deployed site keeps the files it was rendered with. The PNG preview is
 * named here but drawn on its first request ({@link deriveOgImage}): rasterising costs about 14 ms,
 * which page creation does not pay.
 */
export async function storePageImages(media: MediaStore, page: PageImageSource): Promise<PageImageUrls> {
  const { hero } = createPageSvgs(page);
  const hash = digest(hero);
  const heroPath = `pages/${page.id}/hero-${hash}.svg`;
  await putOnce(media, heroPath, () => hero);
  // Without a rasteriser for this platform the page loses its preview image (and falls back to a product
  // image), never the page itself.
  const og = (await rasteriserLoads()) ? media.urlOf(`pages/${page.id}/og-${hash}.png`) : null;
  return { hero_image_url: media.urlOf(heroPath), og_image_url: og };
}

const OG_PATH = /^pages\/([A-Za-z0-9_-]+)\/og-([0-9a-f]{20})\.png$/;

/**
 * Draws a page's Open Graph PNG the first time it is asked for: it is the hero SVG of the same hash,
 * rasterised. Null for any other path, or when that hero was never stored.
 */
export async function deriveOgImage(path: string, read: (path: string) => Promise<Buffer | null>): Promise<Uint8Array | null> {
  const match = OG_PATH.exec(path);
  if (!match) return null;
  const hero = await read(`pages/${match[1]}/hero-${match[2]}.svg`);
  return hero ? toPng(hero.toString("utf8")) : null;
}

let rasteriser: Promise<boolean> | undefined;
function rasteriserLoads(): Promise<boolean> {
  rasteriser ??= import("@resvg/resvg-js").then(
    () => true,
    (error: unknown) => {
      console.error("[lp] no SVG rasteriser on this platform; pages get no Open Graph PNG:", error);
      return false;
    },
  );
  return rasteriser;
}

async function putOnce(media: MediaStore, path: string, make: () => string): Promise<void> {
  if (await media.get(path)) return;
  await media.put(path, make());
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 20);
}

/**
 * Rasterises an SVG with resvg (a native binary shipped in its npm package, loaded on first use
 * so commands that never draw do not pay for it). Generic families map to fonts Debian installs
 * with Chromium (Liberation); any other installed family named in the theme is used as is.
 */
export async function toPng(svg: string): Promise<Uint8Array> {
  const { Resvg } = await import("@resvg/resvg-js");
  const resvg = new Resvg(svg, {
    fitTo: { mode: "original" },
    font: {
      loadSystemFonts: true,
      defaultFontFamily: "Liberation Sans",
      sansSerifFamily: "Liberation Sans",
      serifFamily: "Liberation Serif",
      monospaceFamily: "Liberation Mono",
    },
  });
  return resvg.render().asPng();
}
