import { describe, expect, it } from "vitest";
import { defaultCheckoutFields, type CheckoutField } from "../generation/checkout-fields.js";
import { formatPrice } from "../generation/format-price.js";
import { generateTemplateContent } from "../generation/template-generator.js";
import type { RenderablePage } from "./renderable-page.js";
import { renderPage } from "./render-page.js";
import { defaultTheme } from "./theme.js";

function makePage(overrides: Partial<RenderablePage> = {}, productType: "physical" | "service" = "physical"): RenderablePage {
  const product = {
    title: "Aurora Desk Lamp",
    description: "A dimmable LED lamp.",
    price: 49.9,
    original_price: 79.9,
    delivery_price: 4.5,
    product_type: productType,
    images: [
      { url: "https://img.example.com/lamp-1.jpg", media_type: "image/jpeg" },
      { url: "https://img.example.com/lamp-2.jpg", media_type: "image/jpeg" },
    ],
  };
  const p = { ...product, ...(overrides.product ?? {}) };
  const { content } = generateTemplateContent({ product: p, currency: "EUR", language: overrides.language ?? "fr" });
  return {
    id: "0b8e4a52-0000-4000-8000-000000000001",
    slug: "aurora-desk-lamp",
    language: "fr",
    content,
    global_theme: { ...defaultTheme("EUR"), primaryColor: "#aa0000" },
    seo_config: { title: "Aurora | Lamps", description: "Buy the Aurora lamp", keywords: ["lamp", "desk"], canonicalUrl: "https://shop.example.com/aurora" },
    checkout_fields: defaultCheckoutFields(productType, "fr"),
    hero_image_url: "https://media.example.com/hero.svg",
    og_image_url: "https://media.example.com/og.png",
    ...overrides,
    product: p,
  };
}

const live = { checkoutAction: "/sites/acme/aurora-desk-lamp/checkout" };
const urlsIn = (html: string) => new Set(html.match(/https?:\/\/[^\s"'<>)]+/g) ?? []);

describe("renderPage", () => {
  it("renders a complete HTML5 document with the product, the price in the currency and the delivery", () => {
    const html = renderPage(makePage(), live);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain("Aurora Desk Lamp");
    expect(html).toContain(`<span class="price-current">${formatPrice(49.9, "EUR", "fr")}</span>`);
    expect(html).toContain(`<s class="price-original">${formatPrice(79.9, "EUR", "fr")}</s>`);
    expect(html).toContain(`Livraison\u00a0: ${formatPrice(4.5, "EUR", "fr")}`);
    expect(html).toMatch(/<\/html>\n$/);
  });

  it("renders every section type", () => {
    const page = makePage({ product: { description: "A dimmable LED lamp. Folds flat." } as never });
    page.content.sections.splice(
      2,
      0,
      { type: "benefits", id: "benefits", title: "Points", items: [{ title: "Light", text: "Dimmable." }] },
      { type: "faq", id: "faq", title: "Questions", items: [{ question: "Does it fold?", answer: "Yes, flat." }] },
      { type: "offer", id: "offer", title: "Yours", text: "Light for your desk.", cta_label: "Order" },
    );
    const html = renderPage(page, live);
    for (const id of ["hero", "details", "benefits", "gallery", "faq", "offer", "checkout"]) expect(html).toContain(`id="${id}"`);
    expect(html).toContain("<details><summary>Does it fold?</summary>");
    expect(html).toContain('src="https://img.example.com/lamp-2.jpg"');
    expect(html.match(/href="#checkout"/g)).toHaveLength(2);
    expect(html).toMatch(/<footer class="site-footer">/);
  });

  it("is mobile first with a desktop media query, theme colours as custom properties and no external resources", () => {
    const html = renderPage(makePage(), live);
    expect(html).toContain("--color-primary:#aa0000");
    expect(html).toContain("--font-family:system-ui");
    expect(html).toContain("@media (min-width:768px)");
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link[^>]+stylesheet/i);
    expect(html).not.toMatch(/@import|@font-face/i);
  });

  it("contains no URL other than those it was given", () => {
    const page = makePage({ seo_config: { ogImage: "https://media.example.com/og.png", canonicalUrl: "https://shop.example.com/aurora" } });
    const given = new Set([
      ...page.product.images.map((i) => i.url),
      page.hero_image_url!,
      "https://media.example.com/og.png",
      "https://shop.example.com/aurora",
      "https://shop.example.com/checkout",
    ]);
    const html = renderPage(page, { checkoutAction: "https://shop.example.com/checkout" });
    for (const url of urlsIn(html)) expect(given, url).toContain(url);
  });

  it("resolves host-relative media against assetBase", () => {
    const page = makePage({
      hero_image_url: "/media/acme/hero.svg",
      og_image_url: "/media/acme/og.png",
      product: { images: [] } as never,
      seo_config: {},
    });
    const html = renderPage(page, { checkoutAction: "checkout", assetBase: "http://127.0.0.1:4010/" });
    // No photo: the generated visual, decorative, so its alt text is empty.
    expect(html).toContain('<img src="http://127.0.0.1:4010/media/acme/hero.svg" alt="" width="1200" height="630"');
    expect(html).toContain('<meta property="og:image" content="http://127.0.0.1:4010/media/acme/og.png">');
    expect([...urlsIn(html)].sort()).toEqual(["http://127.0.0.1:4010/media/acme/hero.svg", "http://127.0.0.1:4010/media/acme/og.png"]);
    expect(html).toContain('action="checkout"');
  });

  it("renders user text inert", () => {
    const xss = "<script>alert(1)</script>";
    const page = makePage({
      product: { title: xss, description: xss } as never,
      seo_config: { title: xss, description: xss, keywords: xss },
      checkout_fields: [
        { field_key: "size", label: xss, field_type: "select", is_required: true, options: [xss, "M"] },
      ],
    });
    page.content.headline = xss;
    const html = renderPage(page, live);
    expect(html).not.toContain("<script>alert");
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("escapes quotes so attributes cannot be injected", () => {
    const page = makePage({
      seo_config: { description: '" onmouseover="alert(1)', canonicalUrl: 'https://a.example/"x' },
      product: { title: 'Lamp" autofocus onfocus="alert(1)', images: [{ url: 'https://img.example.com/a.jpg"onerror="alert(1)', media_type: "image/jpeg" }] } as never,
      hero_image_url: null,
    });
    page.content.sections = page.content.sections.filter((s) => s.type !== "gallery");
    const html = renderPage(page, live);
    expect(html).not.toMatch(/"\s*on(mouseover|error|focus)=/);
    expect(html).toContain("&quot; onmouseover=&quot;alert(1)");
    expect(html).toContain("a.jpg&quot;onerror=&quot;alert(1)");
  });

  it("drops URLs with other schemes", () => {
    const page = makePage({ hero_image_url: "javascript:alert(1)", og_image_url: "data:image/svg+xml,<svg onload=alert(1)>" });
    page.content.sections = page.content.sections.map((s) => (s.type === "hero" ? { ...s, image_url: null } : s));
    const html = renderPage({ ...page, product: { ...page.product, images: [] } }, { checkoutAction: "javascript:alert(1)" });
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("data:image/svg");
    expect(html).not.toContain("action=");
  });

  it("sanitises theme values that reach CSS", () => {
    const page = makePage({ global_theme: { ...defaultTheme("EUR"), fontFamily: "x}</style><script>alert(1)</script>", primaryColor: "red;}body{display:none" } });
    const html = renderPage(page, live);
    expect(html).not.toContain("</style><script");
    expect(html).not.toContain("display:none");
    expect(html).toContain(`--color-primary:${defaultTheme("EUR").primaryColor}`);
  });

  it("builds the checkout form from the fields: types, required attributes and marks", () => {
    const html = renderPage(makePage(), live);
    expect(html).toContain('<form method="post" action="/sites/acme/aurora-desk-lamp/checkout"');
    expect(html).toMatch(/<input type="text" id="field-name" name="name"[^>]* required>/);
    expect(html).toMatch(/<input type="tel" id="field-phone" name="phone"[^>]* required>/);
    expect(html).toMatch(/<textarea id="field-address" name="address"[^>]* required><\/textarea>/);
    expect(html).toContain('<label for="field-city">Ville<span class="required-mark" aria-hidden="true">*</span>');
    expect(html.match(/class="required-mark"/g)).toHaveLength(4);
    expect(html).toContain('<button type="submit" class="button">Valider ma commande</button>');
    expect(html).not.toContain("<fieldset disabled>");
  });

  it("renders service fields, optional fields without required, and selects with options", () => {
    const fields: CheckoutField[] = [
      ...defaultCheckoutFields("service", "en"),
      { field_key: "slot", label: "Time slot", field_type: "select", is_required: true, options: ["Morning", "Evening"] },
    ];
    const html = renderPage(makePage({ checkout_fields: fields, language: "en" }, "service"), live);
    expect(html).toMatch(/<input type="email" id="field-email" name="email"[^>]* required>/);
    expect(html).toMatch(/<input type="date" id="field-date" name="date" required>/);
    expect(html).toMatch(/<textarea id="field-notes" name="notes"[^>]*><\/textarea>/);
    expect(html).not.toMatch(/<textarea id="field-notes"[^>]*required/);
    expect(html).toContain('<select id="field-slot" name="slot" required><option value="">Choose…</option><option value="Morning">Morning</option><option value="Evening">Evening</option></select>');
    expect(html).not.toContain("Livraison");
  });

  it("shows the form disabled with a note in the builder preview", () => {
    const html = renderPage(makePage(), { checkoutAction: null, preview: true });
    expect(html).toContain('<form method="post" class="checkout-form" aria-disabled="true">');
    expect(html).not.toContain("action=");
    expect(html).toContain("<fieldset disabled>");
    expect(html).toContain('class="preview-note"');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).toContain('class="preview-banner"');
  });

  it("writes SEO, Open Graph and Twitter tags from seo_config", () => {
    const html = renderPage(makePage(), live);
    expect(html).toContain("<title>Aurora | Lamps</title>");
    expect(html).toContain('<meta name="description" content="Buy the Aurora lamp">');
    expect(html).toContain('<meta name="keywords" content="lamp, desk">');
    expect(html).toContain('<link rel="canonical" href="https://shop.example.com/aurora">');
    expect(html).toContain('<meta property="og:type" content="product">');
    expect(html).toContain('<meta property="og:title" content="Aurora | Lamps">');
    expect(html).toContain('<meta property="og:description" content="Buy the Aurora lamp">');
    // The merchant's first photo; without one, the generated PNG (never the SVG: social networks do not take it).
    expect(html).toContain('<meta property="og:image" content="https://img.example.com/lamp-1.jpg">');
    const photoless = renderPage(makePage({ product: { images: [] } as never }), live);
    expect(photoless).toContain('<meta property="og:image" content="https://media.example.com/og.png">');
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(html).toContain('<meta property="product:price:currency" content="EUR">');
    expect(html).not.toContain("noindex");
  });

  it("falls back to the content headline for the title, and honours noindex", () => {
    const page = makePage({ seo_config: { noindex: true } });
    const html = renderPage(page, live);
    expect(html).toContain(`<title>${page.content.headline}</title>`);
    // The description comes from the copy, which states no amount.
    expect(html).toContain(`<meta name="description" content="${page.content.subheadline}">`);
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
  });

  it("adds a checkout form when the content has no checkout section", () => {
    const page = makePage();
    page.content.sections = page.content.sections.filter((s) => s.type !== "checkout" && s.type !== "hero");
    const html = renderPage(page, live);
    expect(html).toContain('<section class="section checkout" id="checkout">');
    expect(html).toContain('<header class="hero" id="hero">');
    expect(html).toContain('name="phone"');
  });

  it("is pure: the same input gives the same bytes", () => {
    expect(renderPage(makePage(), live)).toBe(renderPage(makePage(), live));
  });
});
