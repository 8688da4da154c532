import type { CheckoutSection, HeroSection, Section } from "../generation/content.js";
import { renderCheckoutSection } from "./checkout-form.js";
import { renderDocument } from "./document-shell.js";
import { escapeHtml } from "./escape.js";
import { renderHead } from "./page-head.js";
import { renderBenefits, renderDetails, renderFaq, renderGallery, renderHero, renderOffer } from "./page-sections.js";
import { renderStyles } from "./page-styles.js";
import { createRenderContext, type RenderContext } from "./render-context.js";
import type { RenderablePage, RenderOptions } from "./renderable-page.js";

/**
 * Renders a page as one self-contained HTML5 document: inline CSS, no scripts, no fonts or files
 * from elsewhere, images only from the URLs the page carries. Pure: the same page and options
 * always give the same bytes, so a deployment can snapshot the result.
 */
export function renderPage(page: RenderablePage, options: RenderOptions): string {
  const ctx = createRenderContext(page, options);
  const sections = withRequiredSections(ctx);
  const checkoutId = sections.find((section) => section.type === "checkout")!.id;
  const body = sections.map((section) => renderSection(ctx, section, { checkoutId })).filter(Boolean);
  const banner = options.preview ? `<p class="preview-banner" role="status">${escapeHtml(ctx.locale.ui.previewBanner)}</p>\n` : "";
  return renderDocument({
    lang: ctx.lang,
    head: renderHead(ctx, renderStyles(ctx.theme)),
    body: `${banner}<main>\n${body.join("\n")}\n</main>\n${renderFooter(ctx)}`,
  });
}

/**
 * The page's footer, in its language: what the form does with the details it takes (sent to the seller
 * with the order, no payment taken). Said here once rather than beside the form and in a FAQ. Accounts
 * carry no display name, so the seller is not named: nothing is invented in its place.
 */
export function renderFooter(ctx: Pick<RenderContext, "locale" | "kind">): string {
  return `<footer class="site-footer">
<div class="container">
<p>${escapeHtml(ctx.locale.footer[ctx.kind])}</p>
</div>
</footer>`;
}

/**
 * The page always opens with a hero and always has a checkout form, even when stored content
 * lacks them (hand-edited or model-written content); the locale supplies the missing labels.
 */
function withRequiredSections(ctx: RenderContext): Section[] {
  const { page, locale, kind } = ctx;
  const sections = [...(page.content?.sections ?? [])];
  if (!sections.some((section) => section.type === "hero")) {
    const hero: HeroSection = {
      type: "hero",
      id: "hero",
      headline: page.content?.headline || page.product.title,
      subheadline: page.content?.subheadline || page.product.description || "",
      cta_label: locale.ctaLabel[kind],
      image_url: null,
    };
    sections.unshift(hero);
  }
  if (!sections.some((section) => section.type === "checkout")) {
    const checkout: CheckoutSection = {
      type: "checkout",
      id: sections.some((section) => section.id === "checkout") ? "checkout-form" : "checkout",
      title: locale.checkoutTitle[kind],
      submit_label: locale.submitLabel[kind],
    };
    sections.push(checkout);
  }
  return sections;
}

function renderSection(ctx: RenderContext, section: Section, anchor: { checkoutId: string }): string {
  switch (section.type) {
    case "hero":
      return renderHero(ctx, section, anchor);
    case "details":
      return renderDetails(section);
    case "benefits":
      return renderBenefits(section);
    case "gallery":
      return renderGallery(ctx, section);
    case "faq":
      return renderFaq(section);
    case "offer":
      return renderOffer(section, anchor);
    case "checkout":
      return renderCheckoutSection(ctx, section);
    default:
      // Unknown types are skipped: content from a newer version, and the testimonials
      // (`social_proof`) that content stored by earlier versions carries, invented by the generator.
      return "";
  }
}
