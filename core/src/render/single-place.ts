import type { PageContent, Section } from "../generation/content.js";

/** Copy tokens that stand for an amount (see `generation/copy-tokens.ts`). */
const AMOUNT_TOKEN = /\{(?:price|original_price|saving|saving_percent|delivery_price)\}/;

/** Sentence ends: a sentence mark followed by a space. Linear: one character class and one lookbehind. */
const SENTENCE_END = /(?<=[.!?…])\s+/;

/**
 * The sentences of a stored text that state no amount. The price, the saving and the delivery price
 * are shown by the price block (in the hero and beside the order button), so copy that repeats them,
 * written by an AI model or stored by earlier versions ("Price: {price}."), is left out.
 */
export function withoutAmounts(text: string): string {
  if (!AMOUNT_TOKEN.test(text)) return text;
  return text
    .split(SENTENCE_END)
    .filter((sentence) => !AMOUNT_TOKEN.test(sentence))
    .join(" ")
    .trim();
}

/**
 * Content as the page shows it: each fact in one place. Amounts live only in the price block, so
 * list items and sentences that state one go, and a section left with nothing to say goes too; a
 * headline that was nothing but such a sentence becomes `title` (the product's name). Runs on stored
 * copy (tokens, not amounts), before the tokens are filled.
 */
export function toSinglePlaceContent(content: PageContent, title: string): PageContent {
  const headline = (text: string) => withoutAmounts(text) || title;
  const sections = content.sections.flatMap((section): Section[] => {
    switch (section.type) {
      case "hero":
        return [{ ...section, headline: headline(section.headline), subheadline: withoutAmounts(section.subheadline) }];
      case "benefits": {
        const items = section.items.filter((item) => !AMOUNT_TOKEN.test(item.title) && !AMOUNT_TOKEN.test(item.text));
        return items.length ? [{ ...section, items }] : [];
      }
      case "faq": {
        const items = section.items.filter((item) => !AMOUNT_TOKEN.test(item.question) && !AMOUNT_TOKEN.test(item.answer));
        return items.length ? [{ ...section, items }] : [];
      }
      case "details":
      case "offer": {
        const text = withoutAmounts(section.text);
        return text ? [{ ...section, text }] : [];
      }
      default:
        return [section];
    }
  });
  return { ...content, headline: headline(content.headline), subheadline: withoutAmounts(content.subheadline), sections };
}
