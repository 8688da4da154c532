import { de } from "./de.js";
import { en } from "./en.js";
import { es } from "./es.js";
import { fr } from "./fr.js";
import type { Locale, LocaleCode } from "./locale.js";

const locales: Record<LocaleCode, Locale> = { en, fr, es, de };

/** Language codes the template generator has phrases for. */
export const supportedLanguages = Object.keys(locales) as LocaleCode[];

/**
 * Finds the phrases for a BCP 47 tag by its primary subtag (`fr-CA` uses `fr`). An unknown or
 * malformed tag gets English, flagged so the caller can warn instead of failing the job.
 */
export function resolveLocale(language: string | null | undefined): { locale: Locale; fallback: boolean } {
  const primary = String(language ?? "").trim().toLowerCase().split(/[-_]/)[0] ?? "";
  const locale = (locales as Record<string, Locale | undefined>)[primary];
  return locale && Object.hasOwn(locales, primary) ? { locale, fallback: false } : { locale: en, fallback: true };
}
