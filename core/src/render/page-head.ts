import { escapeHtml, isAbsoluteHttpUrl, toSafeUrl } from "./escape.js";
import type { RenderContext } from "./render-context.js";

/**
 * Scripts are never needed, so the policy forbids them outright: even if an injection slipped
 * past escaping, a browser would not run it. Images may come from anywhere the page was given.
 * Styles are one inline `<style>` element (no `style` attributes). `connect-src 'self'` lets no
 * script do anything (none runs) but lets tools that load from the page's context read the site's
 * own files: Lighthouse fetches `/robots.txt` that way and fails the SEO audit when it cannot.
 */
export const contentSecurityPolicy =
  "default-src 'none'; connect-src 'self'; img-src 'self' http: https: data:; style-src 'unsafe-inline'; form-action 'self' http: https:; base-uri 'none'";

const meta = (attribute: "name" | "property", key: string, value: string | null | undefined) =>
  value ? `<meta ${attribute}="${key}" content="${escapeHtml(value)}">` : "";

/** Collapses whitespace and bounds length: descriptions come from free text. */
const clean = (value: unknown, max: number) => {
  // ASCII whitespace only: no-break spaces in formatted prices and French punctuation stay.
  const text = typeof value === "string" ? value.replace(/[ \t\r\n\f\v]+/g, " ").trim() : "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** The document title: SEO title, else the content headline, else the product title. */
export function pageTitle(ctx: RenderContext): string {
  const { seo_config: seo, content, product } = ctx.page;
  return clean(seo?.title, 200) || clean(content?.headline, 200) || clean(product.title, 200);
}

/** `<head>` content: charset, viewport, title, description, robots, canonical, Open Graph, Twitter. */
export function renderHead(ctx: RenderContext, styles: string): string {
  const { page, options } = ctx;
  const seo = page.seo_config ?? {};
  const title = pageTitle(ctx);
  const description = clean(seo.description, 500) || clean(page.content?.subheadline, 500) || clean(page.product.description, 500);
  const keywords = clean(Array.isArray(seo.keywords) ? seo.keywords.join(", ") : seo.keywords, 1000);
  const canonical = toSafeUrl(seo.canonicalUrl);
  const hero = page.content?.sections?.find((section) => section.type === "hero");
  // The merchant's photo first: a share shows the product. Without one, the generated hero, whose SVG social
  // networks refuse: its PNG twin stands in for it.
  const image = [seo.ogImage, hero?.type === "hero" ? hero.image_url : null, page.product.images?.[0]?.url, page.og_image_url]
    .map((candidate) => ctx.url(candidate))
    .find(isAbsoluteHttpUrl);
  const noindex = seo.noindex === true || options.preview === true;
  const price = Number.isFinite(page.product.price) ? String(page.product.price) : null;

  return [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">`,
    `<title>${escapeHtml(title)}</title>`,
    // An empty icon: without it every browser asks for /favicon.ico, a 404 logged as a console error.
    `<link rel="icon" href="data:,">`,
    meta("name", "description", description),
    meta("name", "keywords", keywords),
    noindex ? `<meta name="robots" content="noindex, nofollow">` : "",
    isAbsoluteHttpUrl(canonical) ? `<link rel="canonical" href="${escapeHtml(canonical)}">` : "",
    meta("property", "og:type", "product"),
    meta("property", "og:title", title),
    meta("property", "og:description", description),
    meta("property", "og:image", image),
    isAbsoluteHttpUrl(canonical) ? meta("property", "og:url", canonical) : "",
    meta("property", "og:locale", ctx.lang.replace("-", "_")),
    meta("property", "product:price:amount", price),
    meta("property", "product:price:currency", ctx.theme.currency),
    meta("name", "twitter:card", image ? "summary_large_image" : "summary"),
    meta("name", "twitter:title", title),
    meta("name", "twitter:description", description),
    meta("name", "twitter:image", image),
    `<style>${styles}</style>`,
  ]
    .filter(Boolean)
    .join("\n");
}
