import type { PageContent, Section } from "./content.js";
import { formatPrice } from "./format-price.js";
import type { GenerationInput, GenerationResult, Generator, Warning } from "./generation-input.js";
import { hashString, indexBy, pickBy, rotateBy } from "./hash.js";
import type { BenefitCopy, CopyFacts, DeliveryFact, Locale, Tone } from "./locales/locale.js";
import { resolveLocale, supportedLanguages } from "./locales/resolve-locale.js";
import { parseMarketingAngle } from "./marketing-angle.js";

/**
 * Writes a complete page from the product alone, offline. The output is a pure function of the
 * input: every variation (headline variant, benefit order, testimonial authors) comes from a hash
 * of the product title, so regenerating a page never changes it behind the user's back.
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
  const facts = buildFacts(input, locale);
  const hash = hashString(product.title);
  const angle = parseMarketingAngle(input.marketing_angle);
  const tone = angle.tone;

  const headline = pickBy(locale.headlines[tone], hash, 1)(facts);
  const subheadline = angle.custom ? locale.customSubheadline(facts, angle.custom) : locale.subheadlines[tone][kind](facts);
  const images = product.images.map((image) => image.url).filter(isUsableImageUrl);

  const sections: Section[] = [
    { type: "hero", id: "hero", headline, subheadline, cta_label: locale.ctaLabel[kind], image_url: images[0] ?? null },
    { type: "benefits", id: "benefits", title: locale.benefitsTitle(facts), items: benefits(locale, facts, kind, tone, hash) },
  ];
  if (images.length > 1) {
    sections.push({
      type: "gallery",
      id: "gallery",
      title: locale.galleryTitle(facts),
      images: images.slice(0, 20).map((url, index) => ({ url, alt: locale.galleryAlt(facts, index + 1) })),
    });
  }
  const people = rotateBy(locale.people, hash, 2);
  sections.push(
    {
      type: "social_proof",
      id: "social-proof",
      title: locale.socialProofTitle,
      items: locale.quotes[kind].map((quote, index) => {
        const person = people[index % people.length]!;
        return { quote: quote(facts), author: person.author, role: person.role[kind] };
      }),
    },
    { type: "faq", id: "faq", title: locale.faqTitle, items: locale.faq[kind](facts) },
    {
      type: "offer",
      id: "offer",
      title: locale.offerTitle[tone],
      text: locale.offerText[kind](facts),
      cta_label: locale.ctaLabel[kind],
      guarantee: locale.guarantee[kind],
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

/** The tone's benefit leads (that is the emphasis), then savings and the description, then a rotated pool. */
function benefits(locale: Locale, facts: CopyFacts, kind: "physical" | "service", tone: Tone, hash: number): BenefitCopy[] {
  const lead: BenefitCopy[] = [];
  if (tone !== "neutral") lead.push(locale.toneBenefit[tone][kind](facts));
  if (facts.savings) lead.push(locale.savingsBenefit(facts));
  if (facts.summary && tone === "neutral") lead.push(locale.aboutBenefit(facts));
  const pool = rotateBy(locale.benefitPool[kind], hash, 3).map((make) => make(facts));
  const count = 4 + indexBy(hash, 2, 4);
  return [...lead, ...pool].slice(0, count);
}

function buildFacts(input: GenerationInput, locale: Locale): CopyFacts {
  const { product, currency } = input;
  const money = (amount: number) => formatPrice(amount, currency, locale.code);
  const hasSaving = product.original_price != null && product.original_price > product.price && product.price >= 0;
  const saving = hasSaving ? product.original_price! - product.price : 0;
  let delivery: DeliveryFact = { kind: "unknown" };
  if (product.product_type === "physical" && product.delivery_price != null) {
    delivery = product.delivery_price <= 0 ? { kind: "free" } : { kind: "paid", price: money(product.delivery_price) };
  }
  return {
    title: shorten(product.title.replace(/\s+/g, " ").trim(), 90) || "—",
    price: money(product.price),
    originalPrice: hasSaving ? money(product.original_price!) : null,
    savings: hasSaving ? money(saving) : null,
    savingsPercent: hasSaving ? Math.round((saving / product.original_price!) * 100) : null,
    delivery,
    summary: firstSentence(product.description),
  };
}

/** The first sentence reads as a sub-headline; whole descriptions are often paragraphs. */
function firstSentence(description: string | null): string | null {
  const text = (description ?? "").replace(/\s+/g, " ").trim();
  if (!text) return null;
  const sentence = shorten(text.split(/(?<=[.!?])\s/)[0]!, 200);
  return /[.!?…]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Cuts at a word boundary so bounded fields stay within the content schema. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

/** Only URLs a browser can load without leaving http(s) or the serving host. */
function isUsableImageUrl(url: string): boolean {
  return /^https?:\/\/\S+$/i.test(url) || /^\/(?!\/)\S*$/.test(url);
}
