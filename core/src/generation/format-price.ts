/**
 * Formats an amount in a currency for a language, e.g. `formatPrice(19.9, "EUR", "fr")` gives
 * `19,90 €`. A bad currency code or language tag must not fail page generation or rendering,
 * so each falls back: the language to `en`, the currency to a plain number followed by the code.
 */
export function formatPrice(amount: number, currency: string, language: string): string {
  const value = Number.isFinite(amount) ? amount : 0;
  const locale = isLocaleTag(language) ? language : "en";
  try {
    return new Intl.NumberFormat(locale, { style: "currency", currency }).format(value);
  } catch {
    const number = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
    const code = String(currency ?? "").replace(/[^A-Za-z]/g, "").slice(0, 3).toUpperCase();
    return code ? `${number} ${code}` : number;
  }
}

function isLocaleTag(language: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([language]).length > 0;
  } catch {
    return false;
  }
}
