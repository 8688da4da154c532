import { trimEndChars, trimStartChars } from "../trim.js";

/** Letters that read better spelt out than stripped of their marks, in every language. */
const spelt: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i" };

/** German spells umlauts out (`Schöne` → `schoene`); other languages drop the marks (`Crème` → `creme`). */
const umlauts: Record<string, string> = { ä: "ae", ö: "oe", ü: "ue" };

/** `&` as the page's language says it. */
const and: Record<string, string> = { en: "and", fr: "et", es: "y", de: "und" };

/** The primary subtag of a language tag, lower case (`de-AT` → `de`). */
function primaryOf(language: string | undefined): string {
  return String(language ?? "").toLowerCase().split(/[-_]/)[0] ?? "";
}

/**
 * `Café Crème — 2 kg!` → `cafe-creme-2-kg`; read in the page's language: German umlauts are spelt out
 * (`Schöne Tasse` → `schoene-tasse`), `&` becomes the language's "and" (`Sel & Poivre` → `sel-et-poivre`
 * in French). Never empty, at most 60 characters.
 */
export function toSlug(title: string, language?: string): string {
  const lang = primaryOf(language);
  let text = String(title ?? "").toLowerCase();
  if (lang === "de") text = text.replace(/[äöü]/g, (c) => umlauts[c]!);
  text = text.replace(/[ßæœøłđðþı]/g, (c) => spelt[c]!);
  if (and[lang]) text = text.replace(/&/g, ` ${and[lang]} `);
  const dashed = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-");
  const slug = trimEndChars(trimStartChars(trimEndChars(dashed, "-"), "-").slice(0, 60), "-");
  return slug || "page";
}

/**
 * The first free slug for a page in `language`: `base`; then `base-{lang}` (`oak-desk-lamp-fr` for the
 * French page of a product whose English page holds `oak-desk-lamp`); then `base-{lang}-2`, `-3`, ...
 * An untagged or odd language counts from `base-2`.
 */
export function toUniqueSlug(base: string, taken: (slug: string) => boolean, language?: string): string {
  if (!taken(base)) return base;
  const lang = primaryOf(language);
  const stem = /^[a-z]{2,3}$/.test(lang) ? `${trimEndChars(base.slice(0, 60 - lang.length - 1), "-")}-${lang}` : base;
  if (stem !== base && !taken(stem)) return stem;
  for (let n = 2; ; n++) {
    const candidate = `${stem}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}
