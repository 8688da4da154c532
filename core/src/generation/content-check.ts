import type { PageContent, Section } from "./content.js";
import { unsuppliedClaims, suppliedClaims, quotesAmount } from "./content-rule.js";
import { copyTokens, toCopyValues, token } from "./copy-tokens.js";
import type { GenerationInput, Warning } from "./generation-input.js";
import { generateTemplateContent } from "./template-generator.js";
import { toSinglePlaceContent } from "../render/single-place.js";

/** Section types a page has a place for; anything else in a model's answer is dropped before validation. */
const sectionTypes = new Set(["hero", "details", "benefits", "gallery", "faq", "offer", "checkout"]);

/**
 * Removes, from a model's raw answer, the sections a page may not carry (testimonials, reviews,
 * guarantees: nothing the merchant gives can back them) and an offer's `guarantee`, with a warning
 * each. Runs before schema validation so such an answer is trimmed rather than thrown away.
 */
export function stripForbiddenSections(answer: unknown): { answer: unknown; warnings: Warning[] } {
  const warnings: Warning[] = [];
  if (!answer || typeof answer !== "object" || !Array.isArray((answer as { sections?: unknown }).sections)) return { answer, warnings };
  const sections = (answer as { sections: unknown[] }).sections.flatMap((section) => {
    const type = (section as { type?: unknown } | null)?.type;
    if (typeof type === "string" && !sectionTypes.has(type)) {
      warnings.push(rule(`Dropped the "${type.slice(0, 40)}" section: a page states only what the merchant gave (no testimonials, ratings or guarantees).`));
      return [];
    }
    if (type === "offer" && section && typeof section === "object" && "guarantee" in section) {
      const { guarantee: _dropped, ...rest } = section as Record<string, unknown>;
      warnings.push(rule("Dropped the offer's guarantee: the merchant gave none."));
      return [rest];
    }
    return [section];
  });
  return { answer: { ...(answer as object), sections }, warnings };
}

/**
 * Holds validated model copy to the content rule. Amounts the model wrote out become tokens (so
 * they follow the currency); list items that claim what the merchant did not give (reviews,
 * guarantees, returns, cancellation, delivery times, stock, other amounts) are dropped, and so is
 * a list left empty; other texts that do are replaced by the template generator's. One warning
 * per section touched.
 */
export function enforceContentRule(content: PageContent, input: GenerationInput): { content: PageContent; warnings: Warning[] } {
  const supplied = suppliedClaims(input);
  const tokenise = createTokeniser(input);
  const problems = (text: string): string[] => {
    const claims: string[] = unsuppliedClaims(text, supplied);
    return quotesAmount(text, input.currency) ? [...claims, "an amount that is not the product's"] : claims;
  };
  const template = generateTemplateContent(input).content;
  const fromTemplate = <T extends Section>(section: T): T | undefined => template.sections.find((s) => s.type === section.type) as T | undefined;
  const warnings: Warning[] = [];
  const note = (where: string, found: string[]) => {
    if (found.length) warnings.push(rule(`Removed from ${where} claims the merchant did not give (${[...new Set(found)].join(", ")}).`));
  };

  const fix = (where: string, text: string, replacement: string | undefined, found: string[]): string | null => {
    const value = tokenise(text);
    const issues = problems(value);
    if (!issues.length) return value;
    found.push(...issues);
    return replacement ?? null;
  };

  const topFound: string[] = [];
  const headline = fix("headline", content.headline, template.headline, topFound)!;
  const subheadline = fix("subheadline", content.subheadline, template.subheadline, topFound)!;
  note("the headline", topFound);

  const sections = content.sections.flatMap((section): Section[] => {
    const found: string[] = [];
    const base = fromTemplate(section) as Record<string, unknown> | undefined;
    const field = (key: string) => fix(section.id, (section as unknown as Record<string, string>)[key]!, base?.[key] as string | undefined, found);
    let result: Section | null;
    switch (section.type) {
      case "benefits":
      case "faq": {
        const items = (section.items as Record<string, string>[]).filter((item) => {
          const texts = Object.values(item).map(tokenise);
          const issues = texts.flatMap(problems);
          found.push(...issues);
          return issues.length === 0;
        });
        const tokenised = items.map((item) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, tokenise(v)])));
        const title = field("title");
        result = tokenised.length && title ? ({ ...section, title, items: tokenised } as Section) : null;
        break;
      }
      case "gallery": {
        const title = field("title");
        const images = section.images.map((image) => ({ ...image, alt: fix(section.id, image.alt, input.product.title, found)! }));
        result = title ? { ...section, title, images } : null;
        break;
      }
      default: {
        const keys = Object.keys(section).filter((key) => !["type", "id", "image_url"].includes(key));
        const fixed = Object.fromEntries(keys.map((key) => [key, field(key)]));
        result = Object.values(fixed).every((value) => value !== null) ? ({ ...section, ...fixed } as Section) : null;
      }
    }
    note(`section "${section.id}"`, found);
    return result ? [result] : [];
  });
  return { content: { ...content, headline, subheadline, sections }, warnings };
}

/**
 * Holds checked model copy to "each fact once": the page shows the price, saving and delivery price in
 * its price block, so copy that restates one (already turned into tokens by {@link enforceContentRule}) is
 * left out, as the renderer would leave it out, and the stored content is what the page shows. A hero line
 * emptied that way takes the template's. One warning when anything went.
 */
export function holdToSinglePlace(content: PageContent, input: GenerationInput): { content: PageContent; warnings: Warning[] } {
  const single = toSinglePlaceContent(content, input.product.title);
  if (JSON.stringify(single) === JSON.stringify(content)) return { content, warnings: [] };
  const template = generateTemplateContent(input).content;
  const sections = single.sections.map((section) => (section.type === "hero" && !section.subheadline ? { ...section, subheadline: template.subheadline } : section));
  return {
    content: { ...single, subheadline: single.subheadline || template.subheadline, sections },
    warnings: [rule("Left out copy that restated the price, saving or delivery price: the page shows them once, in its price block.")],
  };
}

/** Replaces the product's own amounts, written out in the page currency, with their tokens. */
function createTokeniser(input: GenerationInput): (text: string) => string {
  const values = toCopyValues(input.product, input.currency, input.language);
  const replacements = copyTokens
    .filter((name) => name !== "saving_percent" && values[name] !== "")
    .map((name) => ({ name, pattern: amountPattern(values[name]) }))
    // Longest first: "$1,065.00" must not be cut by a "$65.00" inside it.
    .sort((a, b) => b.pattern.source.length - a.pattern.source.length);
  return (text) => replacements.reduce((value, { name, pattern }) => value.replace(pattern, token(name)), String(text));
}

/**
 * An amount as written (`$1,065.00`, `1 065,00 €`) as a global pattern: its characters literally, any
 * run of spaces as one optional space of any kind. Literals and optional single characters only, so the
 * pattern is linear whatever the amount (the ReDoS sweep checks samples of it).
 */
export function amountPattern(written: string): RegExp {
  return new RegExp(escapeRegExp(written).replace(/[\s\u00a0\u202f]+/g, "[\\s\\u00a0\\u202f]?"), "g");
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function rule(message: string): Warning {
  return { code: "content_rule", message };
}
