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

  it("writes each fact once, and no amount at all: the renderer shows the price block", () => {
    const { content, warnings } = generateTemplateContent(physical);
    expect(warnings).toEqual([]);
    const text = allText(content);
    expect(content.headline).toBe("Aurora Desk Lamp");
    // The hero says the description's first sentence; the details say the rest, not the first again.
    expect(content.subheadline).toBe("A dimmable LED lamp with a warm glow.");
    expect(section(content, "details")!.text).toBe("Folds flat for travel.");
    expect(text).not.toMatch(/49|79|30|€|EUR|\{(price|original_price|saving|saving_percent|delivery_price)\}/);
    expect(text).not.toMatch(/deliver|payment|pay |form/i);
    expect(content.sections.map((s) => s.type)).toEqual(["hero", "details", "gallery", "checkout"]);
    expect(section(content, "hero")!.image_url).toBe("https://img.example.com/lamp-1.jpg");
    // The first photo is the hero's: the gallery has the others.
    expect(section(content, "gallery")!.images).toEqual([{ url: "https://img.example.com/lamp-2.jpg", alt: "Aurora Desk Lamp, photo 2" }]);
    expect(section(content, "checkout")).toEqual({ type: "checkout", id: "checkout", title: "Place your order", submit_label: "Confirm my order" });
  });

  it("leaves out the details when the description is one sentence, and the gallery with one photo", () => {
    const { content } = generateTemplateContent({ ...physical, product: { ...physical.product, description: "Handmade.", images: physical.product.images.slice(0, 1) } });
    expect(content.sections.map((s) => s.type)).toEqual(["hero", "checkout"]);
    expect(content.subheadline).toBe("Handmade.");
  });

  it("keeps the whole description in the details when the hero's line had to be cut", () => {
    const long = `${"word ".repeat(60).trim()}. Second sentence.`;
    const { content } = generateTemplateContent({ ...physical, product: { ...physical.product, description: long } });
    expect(content.subheadline.endsWith("…")).toBe(true);
    expect(section(content, "details")!.text).toBe(long);
  });

  it("uses booking wording for a service, and no gallery without images", () => {
    const { content } = generateTemplateContent(service);
    expect(content.subheadline).toBe("Book directly from this page.");
    expect(content.sections.map((s) => s.type)).toEqual(["hero", "checkout"]);
    expect(section(content, "hero")!.cta_label).toBe("Book now");
    expect(section(content, "hero")!.image_url).toBeNull();
    expect(section(content, "checkout")!.submit_label).toBe("Confirm my booking");
  });

  it.each([
    ["fr", "En détail", "Commander", "Valider ma commande"],
    ["es", "En detalle", "Comprar ahora", "Confirmar pedido"],
    ["de", "Im Detail", "Jetzt bestellen", "Bestellung bestätigen"],
    ["en", "Details", "Order now", "Confirm my order"],
  ])("writes %s copy", (language, details, cta, submit) => {
    const { content, warnings } = generateTemplateContent({ ...physical, language });
    expect(warnings).toEqual([]);
    expect(content.language).toBe(language);
    expect(section(content, "details")!.title).toBe(details);
    expect(section(content, "hero")!.cta_label).toBe(cta);
    expect(section(content, "checkout")!.submit_label).toBe(submit);
    expect(allText(content)).not.toMatch(/\{(price|original_price|saving|saving_percent|delivery_price)\}/);
  });

  it("uses the product name only as a label: the headline, or before a colon", () => {
    for (const language of ["en", "fr", "es", "de"]) {
      for (const base of [physical, service]) {
        const title = "Cours de poterie";
        const { content } = generateTemplateContent({ ...base, language, product: { ...base.product, title, description: null } });
        expect(content.headline).toBe(title);
        const strings = JSON.stringify(content).match(/"(?:[^"\\]|\\.)*"/g)!.map((s) => JSON.parse(s) as string);
        for (const text of strings.filter((t) => t.includes(title))) {
          // The name is the whole string, or starts it followed by a comma (an alt text).
          expect(text === title || text.startsWith(`${title},`), text).toBe(true);
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
    expect(section(content, "checkout")!.title).toBe("Place your order");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.code).toBe("language_fallback");
    expect(warnings[0]!.message).toContain("en, fr, es, de");
  });

  it("changes the calls to action with the marketing angle, claiming nothing", () => {
    const angles = [undefined, "Premium clients", "cheap and cheerful", "sustainable", "limited time", "a Christmas gift"];
    const contents = angles.map((marketing_angle) => generateTemplateContent({ ...service, marketing_angle }).content);
    expect(new Set(contents.map((c) => c.subheadline)).size).toBe(6);
    expect(contents[1]!.subheadline).toBe("Treat yourself.");
    expect(contents[4]!.subheadline).toBe("Book today.");
    for (const content of contents) expect(findClaims(allText(content))).toEqual([]);
  });

  it("recognises keywords in other languages", () => {
    const fr = generateTemplateContent({ ...physical, language: "fr", marketing_angle: "produit écologique" }).content;
    expect(fr.subheadline).toContain("Choisissez en conscience.");
  });

  it("uses an unrecognised angle verbatim in the sub-headline", () => {
    const { content } = generateTemplateContent({ ...physical, marketing_angle: "  made for night-shift nurses.  " });
    expect(content.subheadline).toBe("Made for night-shift nurses.");
    expect(section(content, "hero")!.subheadline).toBe(content.subheadline);
    // The angle took the hero's line, so the details carry the whole description.
    expect(section(content, "details")!.text).toBe(physical.product.description);
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
