import { describe, expect, it } from "vitest";
import { defaultCheckoutFields } from "../generation/checkout-fields.js";
import { generateTemplateContent } from "../generation/template-generator.js";
import type { RenderablePage } from "./renderable-page.js";
import { renderCheckoutConfirmation, renderNotFoundPage } from "./system-pages.js";
import { defaultTheme } from "./theme.js";

const product = {
  title: "Home <Yoga> Session",
  description: null,
  price: 60,
  original_price: null,
  delivery_price: null,
  product_type: "service" as const,
  images: [],
};
const page: RenderablePage = {
  id: "p1",
  slug: "home-yoga",
  language: "de",
  product,
  content: generateTemplateContent({ product, currency: "EUR", language: "de" }).content,
  global_theme: { ...defaultTheme("EUR"), primaryColor: "#004400" },
  seo_config: {},
  checkout_fields: defaultCheckoutFields("service", "de"),
  hero_image_url: null,
};

describe("renderCheckoutConfirmation", () => {
  it("thanks the buyer in the page language and lists the submitted details, escaped", () => {
    const html = renderCheckoutConfirmation(page, { name: '<img src=x onerror="alert(1)">', email: "a@example.com", secret: "not a field" });
    expect(html).toContain('<html lang="de">');
    expect(html).toContain("Vielen Dank!");
    expect(html).toContain("Home &lt;Yoga&gt; Session");
    expect(html).toContain("<dt>Vollständiger Name</dt><dd>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</dd>");
    expect(html).toContain("<dt>E-Mail</dt><dd>a@example.com</dd>");
    expect(html).not.toContain("not a field");
    expect(html).not.toContain("<img");
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(html).toContain("--color-primary:#004400");
    // The page's footer, in its language: where the details went.
    expect(html.match(/<footer class="site-footer">/g)).toHaveLength(1);
    expect(html).toContain("an den Anbieter gesendet. Auf dieser Seite wird keine Zahlung erhoben.");
  });
});

describe("renderNotFoundPage", () => {
  it("renders a self-contained 404 page", () => {
    const html = renderNotFoundPage();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain("Page not found");
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script/i);
  });

  it("speaks the requested language and survives a bad tag", () => {
    expect(renderNotFoundPage("es")).toContain("Página no encontrada");
    expect(renderNotFoundPage('"><script>')).toContain('<html lang="en">');
  });
});
