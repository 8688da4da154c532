import { describe, expect, it } from "vitest";
import { pageContentSchema, type PageContent, type SectionOf, type SectionType } from "./content.js";
import { findClaims } from "./content-rule.js";
import { formatPrice } from "./format-price.js";
import type { GenerationInput } from "./generation-input.js";
import { createTemplateGenerator, generateTemplateContent } from "./template-generator.js";

const physical: GenerationInput = {
  product: {
    title: "Aurora Desk Lamp",
    description: "A dimmable LED lamp with a warm glow. Folds flat for travel.",
    price: 49.9,
    original_price: 79.9,
    delivery_price: 0,
    product_type: "physical",
    images: [
      { url: "https://img.example.com/lamp-1.jpg", media_type: "image/jpeg" },
      { url: "https://img.example.com/lamp-2.jpg", media_type: "image/jpeg" },
    ],
  },
  currency: "EUR",
  language: "en",
};

const service: GenerationInput = {
  product: {
    title: "Home Yoga Session",
    description: null,
    price: 60,
    original_price: null,
    delivery_price: null,
    product_type: "service",
    images: [],
  },
  currency: "USD",
  language: "en",
};

const section = <T extends SectionType>(content: PageContent, type: T) =>
  content.sections.find((s) => s.type === type) as SectionOf<T> | undefined;
const allText = (content: PageContent) => JSON.stringify(content);

describe("generateTemplateContent", () => {
  it("is deterministic for the same input", () => {
    expect(generateTemplateContent(physical)).toEqual(generateTemplateContent(structuredClone(physical)));
  });

  it("produces content valid against the schema for every language, type and angle", () => {
    for (const language of ["en", "fr", "es", "de", "ja"]) {
      for (const base of [physical, service]) {
        for (const marketing_angle of [undefined, "luxury", "budget", "eco", "urgency", "gift", "for busy parents"]) {
          const { content } = generateTemplateContent({ ...base, language, marketing_angle });
          const parsed = pageContentSchema.safeParse(content);
          expect(parsed.success, `${language}/${base.product.product_type}/${marketing_angle}: ${parsed.error?.message}`).toBe(true);
        }
      }
    }
  });

  it("writes copy from the product's facts, with amounts as tokens for the renderer", () => {
    const { content, warnings } = generateTemplateContent(physical);
    expect(warnings).toEqual([]);
    const text = allText(content);
    expect(content.headline).toBe("Aurora Desk Lamp");
    expect(content.subheadline).toBe("A dimmable LED lamp with a warm glow. Price: {price} instead of {original_price}.");
    // No amount is written out: the currency may change after generation.
    expect(text).not.toMatch(/49|79|30|€|EUR/);
    const benefits = section(content, "benefits")!;
    expect(benefits.items.map((i) => i.title)).toEqual(["About", "Price", "Saving", "Delivery", "How to order"]);
    expect(benefits.items[0]!.text).toBe(physical.product.description);
    expect(benefits.items[2]!.text).toBe("{saving} off, {saving_percent}% less than {original_price}.");
    expect(benefits.items[3]!.text).toBe("Delivery is free.");
    const faq = section(content, "faq")!;
    expect(faq.items.map((i) => i.question)).toEqual(["How much is it?", "How much is delivery?", "How do I order?", "Do I pay on this page?"]);
    expect(section(content, "offer")!.text).toBe("Aurora Desk Lamp: {price} instead of {original_price}. Delivery is free.");
    expect(section(content, "hero")!.image_url).toBe("https://img.example.com/lamp-1.jpg");
    expect(section(content, "gallery")!.images.map((i) => i.url)).toEqual(physical.product.images.map((i) => i.url));
    expect(section(content, "checkout")!.submit_label).toBe("Confirm my order");
  });

  it("mentions a paid delivery price as a token", () => {
    const { content } = generateTemplateContent({ ...physical, product: { ...physical.product, delivery_price: 4.5 } });
    expect(allText(content)).toContain("Delivery costs {delivery_price}.");
  });

  it("says nothing of delivery or savings it was not given", () => {
    const { content } = generateTemplateContent({ ...physical, product: { ...physical.product, delivery_price: null, original_price: null } });
    expect(allText(content)).not.toMatch(/deliver|saving|original_price|\{saving/i);
  });

  it("uses booking wording for a service, and no gallery without images", () => {
    const { content } = generateTemplateContent(service);
    const faq = section(content, "faq")!;
    expect(faq.items.map((i) => i.question)).toEqual(["How much is it?", "How do I book?", "Do I pay on this page?"]);
    expect(allText(content)).not.toMatch(/delivery/i);
    expect(content.subheadline).toBe("Book directly from this page. Price: {price}.");
    expect(section(content, "benefits")!.items.map((i) => i.title)).toEqual(["Price", "How to book"]);
    expect(section(content, "hero")!.cta_label).toBe("Book now");
    expect(section(content, "hero")!.image_url).toBeNull();
    expect(section(content, "gallery")).toBeUndefined();
  });

  it.each([
    ["fr", "Questions fréquentes", "Commander", "Livraison offerte."],
    ["es", "Preguntas frecuentes", "Comprar ahora", "Envío gratuito."],
    ["de", "Häufige Fragen", "Jetzt bestellen", "Kostenloser Versand."],
    ["en", "Frequently asked questions", "Order now", "Delivery is free."],
  ])("writes %s copy", (language, faqTitle, cta, delivery) => {
    const { content, warnings } = generateTemplateContent({ ...physical, language });
    expect(warnings).toEqual([]);
    expect(content.language).toBe(language);
    expect(section(content, "faq")!.title).toBe(faqTitle);
    expect(section(content, "hero")!.cta_label).toBe(cta);
    expect(allText(content)).toContain(delivery);
    expect(allText(content)).toContain("{price}");
  });

  it("uses the product name only as a label: the headline, or before a colon", () => {
    for (const language of ["en", "fr", "es", "de"]) {
      for (const base of [physical, service]) {
        const title = "Cours de poterie";
        const { content } = generateTemplateContent({ ...base, language, product: { ...base.product, title, description: null } });
        expect(content.headline).toBe(title);
        const strings = JSON.stringify(content).match(/"(?:[^"\\]|\\.)*"/g)!.map((s) => JSON.parse(s) as string);
        for (const text of strings.filter((t) => t.includes(title))) {
          // The name is the whole string, or starts it followed by a colon or a comma.
          expect(text === title || text.startsWith(`${title}:`) || text.startsWith(`${title}\u00a0:`) || text.startsWith(`${title},`), text).toBe(true);
        }
      }
    }
  });

  it("uses the primary subtag of a regional tag without a warning", () => {
    const { content, warnings } = generateTemplateContent({ ...physical, language: "fr-CA" });
    expect(warnings).toEqual([]);
    expect(content.language).toBe("fr");
  });

  it.each(["ja", "", "not a tag"])("falls back to English with a warning for %j", (language) => {
    const { content, warnings } = generateTemplateContent({ ...physical, language });
    expect(content.language).toBe("en");
    expect(section(content, "faq")!.title).toBe("Frequently asked questions");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.code).toBe("language_fallback");
    expect(warnings[0]!.message).toContain("en, fr, es, de");
  });

  it("changes the calls to action with the marketing angle, claiming nothing", () => {
    const angles = [undefined, "Premium clients", "cheap and cheerful", "sustainable", "limited time", "a Christmas gift"];
    const contents = angles.map((marketing_angle) => generateTemplateContent({ ...service, marketing_angle }).content);
    expect(new Set(contents.map((c) => c.subheadline)).size).toBe(6);
    expect(contents[1]!.subheadline).toBe("Treat yourself. Price: {price}.");
    expect(section(contents[4]!, "offer")!.title).toBe("Don't wait");
    for (const content of contents) expect(findClaims(allText(content))).toEqual([]);
  });

  it("recognises keywords in other languages", () => {
    const fr = generateTemplateContent({ ...physical, language: "fr", marketing_angle: "produit écologique" }).content;
    expect(fr.subheadline).toContain("Choisissez en conscience.");
  });

  it("uses an unrecognised angle verbatim in the sub-headline", () => {
    const { content } = generateTemplateContent({ ...physical, marketing_angle: "  made for night-shift nurses.  " });
    expect(content.subheadline).toBe("Made for night-shift nurses. Price: {price} instead of {original_price}.");
    expect(section(content, "hero")!.subheadline).toBe(content.subheadline);
  });

  it("keeps long titles and descriptions within the schema bounds", () => {
    const long = "Extraordinarily ".repeat(30).trim();
    const { content } = generateTemplateContent({ ...physical, product: { ...physical.product, title: long, description: long } });
    expect(pageContentSchema.safeParse(content).success).toBe(true);
  });

  it("is exposed through the Generator port", async () => {
    const generator = createTemplateGenerator();
    expect(generator.name).toBe("template");
    expect(await generator.generate(physical)).toEqual(generateTemplateContent(physical));
  });
});

describe("formatPrice", () => {
  it("formats by currency and language", () => {
    expect(formatPrice(1234.5, "USD", "en")).toBe("$1,234.50");
    expect(formatPrice(19.99, "EUR", "fr")).toMatch(/^19,99\s€$/);
    expect(formatPrice(19.99, "EUR", "de")).toMatch(/^19,99\s€$/);
    expect(formatPrice(500, "JPY", "en")).toBe("¥500");
  });

  it("falls back on a bad currency or language instead of throwing", () => {
    expect(formatPrice(12.5, "EURO", "en")).toBe("12.50 EUR");
    expect(formatPrice(12.5, "", "en")).toBe("12.50");
    expect(formatPrice(12.5, "USD", "!!")).toBe("$12.50");
  });
});
