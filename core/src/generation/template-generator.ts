import { trimEndChars } from "../trim.js";
import type { PageContent, Section } from "./content.js";
import type { GenerationInput, GenerationResult, Generator, Warning } from "./generation-input.js";
import { resolveLocale, supportedLanguages } from "./locales/resolve-locale.js";
import { parseMarketingAngle } from "./marketing-angle.js";

/**
 * Writes a complete page from the product alone, offline. The output is a pure function of the
 * input. It follows the content rule (DESIGN §7): every sentence is a fact the merchant gave
 * (title, description, type, images, marketing angle) or a plain call to action, and each is said
 * once. Prices, the saving and the delivery price are not copy at all: the renderer shows them in
 * the hero and beside the order button, and says in the footer what the form does. A section with
 * nothing to add is left out, so a product with a one-sentence description and one photo gets a hero
 * and an order form.
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
  const title = shorten(product.title.replace(/\s+/g, " ").trim(), 90) || "—";
  const description = splitDescription(product.description);
  const angle = parseMarketingAngle(input.marketing_angle);

  // The name is the headline: a label reads naturally whatever the name, in every language.
  const headline = title;
  // A custom angle takes the hero's line; the whole description then goes to the details.
  const lead = angle.custom ? `${capitalise(angle.custom)}.` : description.first;
  const rest = angle.custom ? description.whole : description.rest;
  const toneLine = angle.tone !== "neutral" || !lead ? locale.toneLine[angle.tone][kind] : null;
  const subheadline = [lead, toneLine].filter(Boolean).join(" ");
  const images = product.images.map((image) => image.url).filter(isUsableImageUrl);

  const sections: Section[] = [{ type: "hero", id: "hero", headline, subheadline, cta_label: locale.ctaLabel[kind], image_url: images[0] ?? null }];
  if (rest) sections.push({ type: "details", id: "details", title: locale.detailsTitle, text: rest });
  if (images.length > 1) {
    // The first photo is the hero's; the gallery shows the others.
    sections.push({
      type: "gallery",
      id: "gallery",
      title: locale.galleryTitle,
      images: images.slice(1, 21).map((url, index) => ({ url, alt: locale.galleryAlt(title, index + 2) })),
    });
  }
  sections.push({ type: "checkout", id: "checkout", title: locale.checkoutTitle[kind], submit_label: locale.submitLabel[kind] });

  const content: PageContent = { language: locale.code, headline, subheadline, sections };
  return { content, warnings };
}

/** The template generator behind the `Generator` port. */
export function createTemplateGenerator(): Generator {
  return { name: "template", generate: async (input) => generateTemplateContent(input) };
}

/**
 * The description as the hero's line (its first sentence, bounded) and the rest for the details section.
 * When the first sentence had to be cut, the details carry the whole description, so nothing is lost.
 */
function splitDescription(value: string | null | undefined): { first: string | null; rest: string | null; whole: string | null } {
  const whole = (value ?? "").replace(/\s+/g, " ").trim();
  if (!whole) return { first: null, rest: null, whole: null };
  const [sentence, ...others] = whole.split(/(?<=[.!?])\s/);
  const first = shorten(sentence!, 200);
  const complete = first === sentence;
  const rest = complete ? others.join(" ") : whole;
  return { first: /[.!?…]$/.test(first) ? first : `${first}.`, rest: rest ? shorten(rest, 2000) : null, whole: shorten(whole, 2000) };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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
