import { describe, expect, it } from "vitest";
import { findClaims, quotesAmount, suppliedClaims, unsuppliedClaims } from "./content-rule.js";
import type { GenerationInput } from "./generation-input.js";
import { generateTemplateContent } from "./template-generator.js";

describe("findClaims", () => {
  it.each([
    ["Sarah M., Verified buyer", "testimonial"],
    ["Thomas B., Client vérifié", "testimonial"],
    ["Lo que dicen nuestros clientes", "testimonial"],
    ["Anna S., Verifizierte Käuferin", "testimonial"],
    ["Rated 4.8/5 by 2,000 shoppers", "rating"],
    ["★★★★★", "rating"],
    ["30-day money-back guarantee", "guarantee"],
    ["Satisfait ou remboursé pendant 30 jours", "guarantee"],
    ["Garantía de devolución del dinero", "guarantee"],
    ["30 Tage Geld-zurück-Garantie", "guarantee"],
    ["Send it back within 30 days", "returns"],
    ["Devolución gratuita", "returns"],
    ["Annulation gratuite jusqu’à 24 heures avant", "cancellation"],
    ["Kostenlose Stornierung", "cancellation"],
    ["Orders usually arrive within 2 to 5 business days", "shipping_time"],
    ["Les commandes arrivent sous 2 à 5 jours ouvrés", "shipping_time"],
    ["Only 3 left in stock", "scarcity"],
    ["Stock limité", "scarcity"],
    ["Solange der Vorrat reicht", "scarcity"],
    ["Últimas unidades", "scarcity"],
  ])("finds %j as %s", (text, kind) => {
    expect(findClaims(text)).toContain(kind);
  });

  it("finds nothing in plain facts", () => {
    expect(findClaims("Linen Apron: {price} instead of {original_price}. Delivery costs {delivery_price}.")).toEqual([]);
  });
});

describe("the template generator under the content rule", () => {
  const base: GenerationInput = {
    product: { title: "Cours de poterie", description: "Clay included.", price: 65, original_price: 80, delivery_price: 5, product_type: "physical", images: [] },
    currency: "EUR",
    language: "en",
  };

  it("makes no claim in any language, product type or tone", () => {
    for (const language of ["en", "fr", "es", "de"]) {
      for (const product_type of ["physical", "service"] as const) {
        for (const marketing_angle of [undefined, "luxury", "budget", "eco", "urgency", "gift", "for beginners"]) {
          const { content } = generateTemplateContent({ ...base, language, marketing_angle, product: { ...base.product, product_type } });
          const strings = JSON.stringify(content);
          expect(findClaims(strings), `${language}/${product_type}/${marketing_angle}`).toEqual([]);
          expect(quotesAmount(strings, "EUR")).toBe(false);
        }
      }
    }
  });
});

describe("suppliedClaims", () => {
  it("allows the claims the merchant's own words make", () => {
    const input: GenerationInput = {
      product: { title: "Socks", description: "Free returns within 30 days.", price: 1, original_price: null, delivery_price: null, product_type: "physical", images: [] },
      currency: "USD",
      language: "en",
    };
    const supplied = suppliedClaims(input);
    expect(unsuppliedClaims("Returns are free.", supplied)).toEqual([]);
    expect(unsuppliedClaims("Lifetime guarantee.", supplied)).toEqual(["guarantee"]);
  });
});

describe("quotesAmount", () => {
  it("spots amounts written with a currency", () => {
    expect(quotesAmount("Only $18.00", "USD")).toBe(true);
    expect(quotesAmount("18,00 €", "EUR")).toBe(true);
    expect(quotesAmount("18 CHF", "CHF")).toBe(true);
    expect(quotesAmount("Only {price}", "USD")).toBe(false);
    expect(quotesAmount("Two hours at the wheel", "USD")).toBe(false);
  });
});
