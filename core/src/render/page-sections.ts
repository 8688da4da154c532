import type {
  BenefitsSection,
  DetailsSection,
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
 * The first screen: the name, the hero's line, the price block and the call to action. Image
 * preference: the one the content names, then the first product photo, then the generated visual
 * (shapes and the product's initial in the theme's colours, no words), which is decorative.
 */
export function renderHero(ctx: RenderContext, section: HeroSection, anchor: Anchor): string {
  const { page } = ctx;
  const photo = [section.image_url, page.product.images?.[0]?.url].map(ctx.url).find(Boolean);
  const visual = photo ? null : ctx.url(page.hero_image_url);
  const media = photo
    ? image(photo, page.product.title, ` width="1200" height="630" fetchpriority="high"`)
    : visual
      ? image(visual, "", ` width="1200" height="630" fetchpriority="high"`)
      : "";
  return `<header class="hero" id="${e(section.id)}">
<div class="container hero-grid">
<div class="hero-copy">
<h1>${e(section.headline)}</h1>
${section.subheadline ? `<p class="subheadline">${e(section.subheadline)}</p>\n` : ""}${renderPriceBlock(ctx)}
<a class="button" href="#${e(anchor.checkoutId)}">${e(section.cta_label)}</a>
</div>
${media ? `<div class="hero-media${photo ? "" : " hero-visual"}">${media}</div>` : ""}
</div>
</header>`;
}

/** The description beyond the hero's line, as the merchant wrote it. */
export function renderDetails(section: DetailsSection): string {
  return wrap("details", section.id, section.title, `<p class="details-text">${e(section.text)}</p>`);
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
 * A closing call to action from AI content or content stored by earlier versions: its text and a link
 * to the form. The price is not repeated here (the hero and the form show it), nor is a `guarantee`
 * such content may carry: nobody supplied it.
 */
export function renderOffer(section: OfferSection, anchor: Anchor): string {
  const body = `<p>${e(section.text)}</p>
<a class="button" href="#${e(anchor.checkoutId)}">${e(section.cta_label)}</a>`;
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
