import { describe, expect, it } from "vitest";
import { defaultCheckoutFields } from "../generation/checkout-fields.js";
import type { PageContent } from "../generation/content.js";
import { formatPrice } from "../generation/format-price.js";
import { resolveLocale } from "../generation/locales/resolve-locale.js";
import { generateTemplateContent } from "../generation/template-generator.js";
import type { RenderablePage } from "./renderable-page.js";
import { renderPage } from "./render-page.js";
import { defaultTheme } from "./theme.js";

/**
 * Each fact in one place, in every language and for both product types: the price, the saving and the
 * delivery price in the hero and beside the order button and nowhere else, one footer saying what the
 * form does, and a photo-less hero that repeats no copy.
 */
const languages = ["en", "fr", "es", "de"] as const;
const types = ["physical", "service"] as const;
const live = { checkoutAction: "/sites/acme/linen-apron/checkout" };
const HERO_SVG = "https://media.example.com/pages/p/hero-0123.svg";

function makePage(language: string, product_type: "physical" | "service", images: string[] = [], content?: PageContent): RenderablePage {
  const product = {
    title: "Linen Apron",
    description: "Stonewashed linen apron with two front pockets. Adjustable neck strap.",
    price: 42,
    original_price: 55,
    delivery_price: 4.9,
    product_type,
    images: images.map((url) => ({ url, media_type: "image/jpeg" })),
  };
  return {
    id: "0b8e4a52-0000-4000-8000-000000000001",
    slug: "linen-apron",
    language,
    product,
    content: content ?? generateTemplateContent({ product, currency: "USD", language }).content,
    global_theme: defaultTheme("USD"),
    seo_config: { title: product.title },
    checkout_fields: defaultCheckoutFields(product_type, language),
    hero_image_url: HERO_SVG,
    og_image_url: "https://media.example.com/pages/p/og-0123.png",
  };
}

const bodyOf = (html: string) => html.slice(html.indexOf("<body>"));
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("a rendered page says each fact once", () => {
  for (const language of languages) {
    for (const type of types) {
      it(`${language}, ${type}: the price block twice, one footer, nothing else restating them`, () => {
        const { locale } = resolveLocale(language);
        const html = renderPage(makePage(language, type), live);
        const body = bodyOf(html);
        const money = (amount: number) => formatPrice(amount, "USD", language);
        // In the hero and beside the submit button; never in copy, a card, a FAQ or an image.
        expect(count(body, money(42)), money(42)).toBe(2);
        expect(count(body, money(55))).toBe(2);
        expect(count(body, locale.ui.save(24))).toBe(2);
        expect(count(body, money(13))).toBe(0);
        expect(count(body, money(4.9))).toBe(type === "physical" ? 2 : 0);
        const checkout = body.slice(body.indexOf('<section class="section checkout"'));
        expect(checkout.indexOf('<div class="order-summary"><p class="price">')).toBeGreaterThan(-1);
        expect(checkout.indexOf('<div class="order-summary">')).toBeLessThan(checkout.indexOf('<button type="submit"'));

        // One footer, after the main content, in the page's language, saying what the form does.
        expect(count(html, "<footer")).toBe(1);
        expect(count(html, locale.footer[type])).toBe(1);
        expect(html).toMatch(new RegExp(`</main>\\n<footer class="site-footer">\\n<div class="container">\\n<p>[^<]+</p>\\n</div>\\n</footer>\\n</body>`));

        // The description's first sentence in the hero, the rest in the details: neither twice.
        expect(count(body, "Stonewashed linen apron with two front pockets.")).toBe(1);
        expect(count(body, "Adjustable neck strap.")).toBe(1);
        expect(body).not.toMatch(/id="(faq|benefits|offer)"/);
        expect(count(body, "Linen Apron")).toBe(1);

        // No photo: the generated visual, decorative (its words would repeat the page).
        expect(body).toContain(`<div class="hero-media hero-visual"><img src="${HERO_SVG}" alt=""`);
      });
    }
  }

  it("shows the merchant's first photo in the hero and the others in the gallery, each once", () => {
    const photos = ["https://img.example.com/a.jpg", "https://img.example.com/b.jpg", "https://img.example.com/c.jpg"];
    const body = bodyOf(renderPage(makePage("en", "physical", photos), live));
    for (const url of photos) expect(count(body, `src="${url}"`), url).toBe(1);
    expect(body).toContain(`<div class="hero-media"><img src="${photos[0]}" alt="Linen Apron"`);
    expect(body).not.toContain(HERO_SVG);
    expect(body).toContain('alt="Linen Apron, photo 3"');
  });

  it("leaves out what content stored by earlier versions restated: price sentences, price cards and questions", () => {
    const old: PageContent = {
      language: "en",
      headline: "Linen Apron",
      subheadline: "Stonewashed linen apron. Price: {price} instead of {original_price}.",
      sections: [
        { type: "hero", id: "hero", headline: "Only {price}!", subheadline: "Stonewashed linen apron. Price: {price} instead of {original_price}.", cta_label: "Order now", image_url: null },
        {
          type: "benefits",
          id: "benefits",
          title: "At a glance",
          items: [
            { title: "Price", text: "{price} instead of {original_price}." },
            { title: "Saving", text: "{saving} off, {saving_percent}% less than {original_price}." },
            { title: "Delivery", text: "Delivery costs {delivery_price}." },
          ],
        },
        {
          type: "faq",
          id: "faq",
          title: "Frequently asked questions",
          items: [
            { question: "How much is it?", answer: "{price} instead of {original_price}." },
            { question: "Which sizes?", answer: "One size, adjustable." },
          ],
        },
        { type: "offer", id: "offer", title: "The offer", text: "Linen Apron: {price} instead of {original_price}. Delivery costs {delivery_price}.", cta_label: "Order now" },
        { type: "checkout", id: "checkout", title: "Place your order", submit_label: "Confirm my order", note: "No payment is taken on this page." } as never,
      ],
    };
    const html = renderPage(makePage("en", "physical", [], old), live);
    const body = bodyOf(html);
    expect(count(body, "$42.00")).toBe(2);
    expect(count(body, "$55.00")).toBe(2);
    expect(count(body, "$4.90")).toBe(2);
    expect(body).toContain('<p class="subheadline">Stonewashed linen apron.</p>');
    // A headline that was only a price sentence gives way to the product's name.
    expect(body).toContain("<h1>Linen Apron</h1>");
    // Only the cards and questions that say something else stay; an emptied section goes.
    expect(body).not.toContain('id="benefits"');
    expect(body).not.toContain('id="offer"');
    expect(body).toContain("<summary>Which sizes?</summary>");
    expect(body).not.toContain("How much is it?");
    expect(count(body, "No payment is taken on this page.")).toBe(1);
    expect(html).toContain('<meta name="description" content="Stonewashed linen apron.">');
  });
});
