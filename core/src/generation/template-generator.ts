import { trimEndChars } from "../trim.js";
import type { PageContent, Section } from "./content.js";
import { token } from "./copy-tokens.js";
import type { GenerationInput, GenerationResult, Generator, Warning } from "./generation-input.js";
import type { BenefitCopy, CopyFacts, DeliveryFact, Locale, QaCopy } from "./locales/locale.js";
import { resolveLocale, supportedLanguages } from "./locales/resolve-locale.js";
import { parseMarketingAngle } from "./marketing-angle.js";

/**
 * Writes a complete page from the product alone, offline. The output is a pure function of the
 * input. It follows the content rule (DESIGN §7): every sentence is a fact the merchant gave
 * (title, description, prices, delivery price, type, images, marketing angle), something that
 * follows from them (a saving), how this page works (a form, no payment here), or a plain call to
 * action. A section with nothing true to say is left out. Amounts are copy tokens, filled when
 * the page is rendered.
 */
export function generateTemplateContent(input: GenerationInput): GenerationResult {
  const warnings: Warning[] = [];
  const { locale, fallback } = resolveLocale(input.language);
  if (fallback) {
    warnings.push({
      code: "language_fallback",
      message: `Language "${String(input.language)}" is not supported by the template generator (supported: ${supportedLanguages.join(", ")}); the page was written in English.`,
    });
  }
  const product = input.product;
  const kind = product.product_type === "service" ? "service" : "physical";
  const facts = buildFacts(input);
  const angle = parseMarketingAngle(input.marketing_angle);

  // The name is the headline: a label reads naturally whatever the name, in every language.
  const headline = facts.title;
  const lead = angle.custom ? `${capitalise(angle.custom)}.` : facts.summary;
  const toneLine = angle.tone !== "neutral" || !lead ? locale.toneLine[angle.tone][kind] : null;
  const subheadline = [lead, toneLine, `${locale.overview.price}${locale.colon}${locale.priceText(facts)}.`].filter(Boolean).join(" ");
  const images = product.images.map((image) => image.url).filter(isUsableImageUrl);

  const sections: Section[] = [
    { type: "hero", id: "hero", headline, subheadline, cta_label: locale.ctaLabel[kind], image_url: images[0] ?? null },
    { type: "benefits", id: "benefits", title: locale.overviewTitle, items: overview(locale, facts, kind) },
  ];
  if (images.length > 1) {
    sections.push({
      type: "gallery",
      id: "gallery",
      title: locale.galleryTitle,
      images: images.slice(0, 20).map((url, index) => ({ url, alt: locale.galleryAlt(facts, index + 1) })),
    });
  }
  const faq: QaCopy[] = [{ question: locale.faq.price, answer: `${locale.priceText(facts)}.` }];
  if (facts.delivery.kind !== "unknown") faq.push({ question: locale.faq.delivery, answer: locale.deliveryText(facts.delivery) });
  faq.push(locale.faq.order[kind], locale.faq.payment);
  const offerText = [`${facts.title}${locale.colon}${locale.priceText(facts)}.`, facts.delivery.kind !== "unknown" ? locale.deliveryText(facts.delivery) : null];
  sections.push(
    { type: "faq", id: "faq", title: locale.faqTitle, items: faq },
    {
      type: "offer",
      id: "offer",
      title: locale.offerTitle[angle.tone],
      text: offerText.filter(Boolean).join(" "),
      cta_label: locale.ctaLabel[kind],
    },
    {
      type: "checkout",
      id: "checkout",
      title: locale.checkoutTitle[kind],
      submit_label: locale.submitLabel[kind],
      note: locale.checkoutNote[kind],
    },
  );

  const content: PageContent = { language: locale.code, headline, subheadline, sections };
  return { content, warnings };
}

/** The template generator behind the `Generator` port. */
export function createTemplateGenerator(): Generator {
  return { name: "template", generate: async (input) => generateTemplateContent(input) };
}

/** The "at a glance" points: only what the product states, and how to order. */
function overview(locale: Locale, facts: CopyFacts, kind: "physical" | "service"): BenefitCopy[] {
  const items: BenefitCopy[] = [];
  if (facts.details) items.push({ title: locale.overview.about, text: facts.details });
  items.push({ title: locale.overview.price, text: `${locale.priceText(facts)}.` });
  if (facts.hasSaving) items.push({ title: locale.overview.saving, text: locale.overview.savingText });
  if (facts.delivery.kind !== "unknown") items.push({ title: locale.overview.delivery, text: locale.deliveryText(facts.delivery) });
  items.push(locale.overview.order[kind]);
  return items;
}

function buildFacts(input: GenerationInput): CopyFacts {
  const { product } = input;
  const hasSaving = product.original_price != null && product.original_price > product.price && product.price >= 0;
  let delivery: DeliveryFact = { kind: "unknown" };
  if (product.product_type === "physical" && product.delivery_price != null && Number.isFinite(product.delivery_price)) {
    delivery = product.delivery_price <= 0 ? { kind: "free" } : { kind: "paid", price: token("delivery_price") };
  }
  const description = (product.description ?? "").replace(/\s+/g, " ").trim();
  const summary = firstSentence(description);
  return {
    title: shorten(product.title.replace(/\s+/g, " ").trim(), 90) || "—",
    hasSaving,
    delivery,
    summary,
    details: summary && description.length > summary.length + 1 ? shorten(description, 600) : null,
  };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The first sentence reads as a sub-headline; whole descriptions are often paragraphs. */
function firstSentence(text: string): string | null {
  if (!text) return null;
  const sentence = shorten(text.split(/(?<=[.!?])\s/)[0]!, 200);
  return /[.!?…]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Cuts at a word boundary so bounded fields stay within the content schema. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${trimEndChars(space > max / 2 ? cut.slice(0, space) : cut, ",;:.-", true)}…`;
}

/** Only URLs a browser can load without leaving http(s) or the serving host. */
function isUsableImageUrl(url: string): boolean {
  return /^https?:\/\/\S+$/i.test(url) || /^\/(?!\/)\S*$/.test(url);
}
