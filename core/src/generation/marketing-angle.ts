import { trimEndChars } from "../trim.js";
import type { Tone } from "./locales/locale.js";

/**
 * Keywords (lower case, accents removed) that select a tone. A few non-English words are listed
 * because users write the angle in the page's language.
 */
const keywords: [Exclude<Tone, "neutral">, string[]][] = [
  ["luxury", ["luxury", "luxurious", "premium", "high-end", "exclusive", "luxe", "lujo", "luxus", "exclusif", "exklusiv", "haut de gamme"]],
  ["budget", ["budget", "cheap", "value", "discount", "affordable", "bargain", "deal", "pas cher", "promo", "barato", "economico", "gunstig", "rabatt", "preiswert"]],
  ["eco", ["eco", "sustainable", "green", "organic", "ethical", "ecologique", "durable", "ecologico", "sostenible", "nachhaltig", "umwelt", "bio"]],
  ["urgency", ["urgency", "urgent", "limited", "hurry", "last chance", "now", "limite", "limitado", "begrenzt", "jetzt"]],
  ["gift", ["gift", "present", "christmas", "birthday", "cadeau", "regalo", "geschenk", "noel", "navidad", "weihnachten"]],
];

/**
 * The keywords as patterns, built once. Whole words only: "now" must not match "known", "eco" must not
 * match "second". Exported for the ReDoS sweep, which checks each.
 */
export const tonePatterns: [Exclude<Tone, "neutral">, RegExp[]][] = keywords.map(([tone, words]) => [
  tone,
  words.map((word) => new RegExp(`(^|[^a-z])${word.replace(/-/g, "[- ]?")}($|[^a-z])`)),
]);

/** The result of reading a marketing angle. */
export interface MarketingAngle {
  tone: Tone;
  /** The angle as written (trimmed, bounded) when no keyword matched; shown verbatim. */
  custom: string | null;
}

/** Reads a free-text marketing angle into a tone, or keeps it as custom text. */
export function parseMarketingAngle(angle: string | undefined | null): MarketingAngle {
  const written = trimEndChars((angle ?? "").replace(/\s+/g, " ").trim().slice(0, 160), ".!?", true);
  if (!written) return { tone: "neutral", custom: null };
  const folded = written.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  for (const [tone, patterns] of tonePatterns) {
    if (patterns.some((pattern) => pattern.test(folded))) {
      return { tone, custom: null };
    }
  }
  return { tone: "neutral", custom: written };
}
