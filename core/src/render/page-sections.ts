import type {
  BenefitsSection,
  FaqSection,
  GallerySection,
  HeroSection,
  OfferSection,
} from "../generation/content.js";
import { escapeHtml } from "./escape.js";
import { renderPriceBlock } from "./price-block.js";
import type { RenderContext } from "./render-context.js";

/** `#checkout` or whatever id the checkout section has: every call to action points there. */
type Anchor = { checkoutId: string };

const e = escapeHtml;

const image = (src: string, alt: string, extra = "") =>
  `<img src="${e(src)}" alt="${e(alt)}"${extra} decoding="async">`;

/**
 * The first screen. Image preference: the one the content names, then the generated hero SVG,
 * then the first product image.
 */
export function renderHero(ctx: RenderContext, section: HeroSection, anchor: Anchor): string {
  const { page } = ctx;
  const src = [section.image_url, page.hero_image_url, page.product.images?.[0]?.url].map(ctx.url).find(Boolean);
  return `<header class="hero" id="${e(section.id)}">
<div class="container hero-grid">
<div class="hero-copy">
<h1>${e(section.headline)}</h1>
<p class="subheadline">${e(section.subheadline)}</p>
${renderPriceBlock(ctx)}
<a class="button" href="#${e(anchor.checkoutId)}">${e(section.cta_label)}</a>
</div>
${src ? `<div class="hero-media">${image(src, page.product.title, ` width="1200" height="630" fetchpriority="high"`)}</div>` : ""}
</div>
</header>`;
}

/** Benefit cards. */
export function renderBenefits(section: BenefitsSection): string {
  const cards = section.items.map((item) => `<div class="card"><h3>${e(item.title)}</h3><p>${e(item.text)}</p></div>`);
  return wrap("benefits", section.id, section.title, `<div class="grid">${cards.join("")}</div>`);
}

/** Product photos; images with an unusable URL are left out, and so is an empty gallery. */
export function renderGallery(ctx: RenderContext, section: GallerySection): string {
  const images = section.images.flatMap((item) => {
    const src = ctx.url(item.url);
    return src ? [`<figure>${image(src, item.alt, ` loading="lazy"`)}</figure>`] : [];
  });
  return images.length ? wrap("gallery", section.id, section.title, `<div class="gallery-grid">${images.join("")}</div>`) : "";
}

/** Questions as disclosure widgets: collapsible without any script. */
export function renderFaq(section: FaqSection): string {
  const items = section.items.map((item) => `<details><summary>${e(item.question)}</summary><p>${e(item.answer)}</p></details>`);
  return wrap("faq", section.id, section.title, items.join(""));
}

/**
 * The offer recap, with the generated banner above it when there is one. A `guarantee` that
 * content stored by earlier versions may still carry is not rendered: nobody supplied it.
 */
export function renderOffer(ctx: RenderContext, section: OfferSection, anchor: Anchor): string {
  const banner = ctx.url(ctx.page.banner_image_url);
  const body = `${banner ? `<div class="banner">${image(banner, ctx.page.product.title, ` width="1200" height="300" loading="lazy"`)}</div>` : ""}
<div class="offer-box">
<p>${e(section.text)}</p>
${renderPriceBlock(ctx)}
<a class="button" href="#${e(anchor.checkoutId)}">${e(section.cta_label)}</a>
</div>`;
  return wrap("offer", section.id, section.title, body);
}

function wrap(kind: string, id: string, title: string, body: string): string {
  return `<section class="section ${kind}" id="${e(id)}">
<div class="container">
<h2>${e(title)}</h2>
${body}
</div>
</section>`;
}
