import { describe, expect, it } from "vitest";
import { pageContentSchema, type PageContent, type SectionOf, type SectionType } from "./content.js";
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

  it("writes real copy from the product: title, price, savings and free delivery", () => {
    const { content, warnings } = generateTemplateContent(physical);
    expect(warnings).toEqual([]);
    const text = allText(content);
    expect(content.headline).toContain("Aurora Desk Lamp");
    expect(content.subheadline).toContain("A dimmable LED lamp with a warm glow.");
    expect(text).toContain(formatPrice(49.9, "EUR", "en"));
    expect(text).toContain(formatPrice(79.9, "EUR", "en"));
    expect(text).toContain(`Save ${formatPrice(30, "EUR", "en")}`);
    expect(text).toContain("Delivery is free");
    const faq = section(content, "faq")!;
    expect(faq.items.map((i) => i.question)).toEqual(expect.arrayContaining(["How much is delivery?", "Can I return it?"]));
    const benefits = section(content, "benefits")!;
    expect(benefits.items.length).toBeGreaterThanOrEqual(3);
    expect(benefits.items.length).toBeLessThanOrEqual(6);
    expect(section(content, "hero")!.image_url).toBe("https://img.example.com/lamp-1.jpg");
    expect(section(content, "gallery")!.images.map((i) => i.url)).toEqual(physical.product.images.map((i) => i.url));
    expect(section(content, "checkout")!.submit_label).toBe("Confirm my order");
  });

  it("mentions a paid delivery price", () => {
    const { content } = generateTemplateContent({ ...physical, product: { ...physical.product, delivery_price: 4.5 } });
    expect(allText(content)).toContain(`Delivery costs ${formatPrice(4.5, "EUR", "en")}`);
  });

  it("uses booking wording for a service, and no gallery without images", () => {
    const { content } = generateTemplateContent(service);
    const faq = section(content, "faq")!;
    expect(faq.items.map((i) => i.question)).toEqual(expect.arrayContaining(["How do I book?", "Can I cancel or reschedule?"]));
    expect(allText(content)).not.toMatch(/delivery/i);
    expect(section(content, "hero")!.cta_label).toBe("Book now");
    expect(section(content, "hero")!.image_url).toBeNull();
    expect(section(content, "gallery")).toBeUndefined();
    expect(allText(content)).not.toContain("Save ");
  });

  it.each([
    ["fr", "Questions fréquentes", "Commander", "La livraison est offerte"],
    ["es", "Preguntas frecuentes", "Comprar ahora", "El envío es gratuito"],
    ["de", "Häufige Fragen", "Jetzt bestellen", "Der Versand ist kostenlos"],
    ["en", "Frequently asked questions", "Order now", "Delivery is free"],
  ])("writes %s copy with the price formatted for that language", (language, faqTitle, cta, delivery) => {
    const { content, warnings } = generateTemplateContent({ ...physical, language });
    expect(warnings).toEqual([]);
    expect(content.language).toBe(language);
    expect(section(content, "faq")!.title).toBe(faqTitle);
    expect(section(content, "hero")!.cta_label).toBe(cta);
    expect(allText(content)).toContain(delivery);
    expect(allText(content)).toContain(formatPrice(49.9, "EUR", language));
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

  it("changes tone and benefit emphasis with the marketing angle", () => {
    const neutral = generateTemplateContent(service).content;
    const luxury = generateTemplateContent({ ...service, marketing_angle: "Premium clients" }).content;
    const budget = generateTemplateContent({ ...service, marketing_angle: "cheap and cheerful" }).content;
    const eco = generateTemplateContent({ ...service, marketing_angle: "sustainable" }).content;
    const urgency = generateTemplateContent({ ...service, marketing_angle: "limited time" }).content;
    const gift = generateTemplateContent({ ...service, marketing_angle: "a Christmas gift" }).content;
    const subheadlines = new Set([neutral, luxury, budget, eco, urgency, gift].map((c) => c.subheadline));
    expect(subheadlines.size).toBe(6);
    expect(section(luxury, "benefits")!.items[0]!.title).toBe("An exceptional experience");
    expect(section(budget, "benefits")!.items[0]!.title).toBe("Fair pricing");
    expect(section(eco, "benefits")!.items[0]!.title).toBe("Low impact");
    expect(section(urgency, "benefits")!.items[0]!.title).toBe("Limited availability");
    expect(section(gift, "benefits")!.items[0]!.title).toBe("A gift to remember");
    expect(section(urgency, "offer")!.title).toBe("Limited-time offer");
  });

  it("recognises keywords in other languages", () => {
    const fr = generateTemplateContent({ ...physical, language: "fr", marketing_angle: "produit écologique" }).content;
    expect(section(fr, "benefits")!.items[0]!.title).toBe("Un choix responsable");
  });

  it("uses an unrecognised angle verbatim in the sub-headline", () => {
    const { content } = generateTemplateContent({ ...physical, marketing_angle: "  made for night-shift nurses.  " });
    expect(content.subheadline).toContain("made for night-shift nurses");
    expect(section(content, "hero")!.subheadline).toBe(content.subheadline);
  });

  it("derives variation from the title", () => {
    const titles = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa"];
    const shapes = new Set(
      titles.map((title) => generateTemplateContent({ ...service, product: { ...service.product, title } }).content.headline.replace(title, "X")),
    );
    expect(shapes.size).toBeGreaterThan(1);
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
