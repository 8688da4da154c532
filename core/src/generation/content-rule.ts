import type { GenerationInput } from "./generation-input.js";

/**
 * The content rule (DESIGN §7) as a check: kinds of claim a page may only make when the merchant
 * supplied them. Patterns cover en, fr, es and de, matched on lower-case text without accents.
 */
export const claimKinds = ["testimonial", "rating", "guarantee", "returns", "cancellation", "shipping_time", "scarcity"] as const;

/** A kind of claim. */
export type ClaimKind = (typeof claimKinds)[number];

/**
 * The patterns of each kind of claim; a text makes the claim when one matches. The long lists are one
 * pattern per phrase: joined into one alternation, they were too large for recheck's automaton check, and
 * its fuzzer found them polynomial. Exported for the ReDoS sweep, which checks each.
 */
export const claimPatterns: Record<ClaimKind, RegExp[]> = {
  testimonial: [
    new RegExp(
      [
        "verified (buyer|customer|purchase)",
        "(our|happy) customers",
        "customers (say|love)",
        "testimonial",
        "\\breviews?\\b",
        "client(e)? (verifie|fidele)",
        "achat verifie",
        "\\bavis (client|de nos)",
        "temoignage",
        "ce que disent",
        "opiniones",
        "resenas?\\b",
        "testimonio",
        "(comprador|cliente) verificad",
        "lo que dicen",
        "kundenstimmen",
        "rezension",
        "verifizierte[rn]? (kauf|kund)",
        "stammkund",
        "das sagen",
      ].join("|"),
    ),
  ],
  rating: [/\brated\b|\bratings?\b|★|⭐|\b\d([.,]\d)?\s*\/\s*5\b|\bstars?\b|etoiles|estrellas|\bsterne|bewertung|\bnote (de|moyenne)/],
  guarantee: [/guarantee|warranty|money.back|refund|garantie|rembourse|garantia|garantiz|reembols|geld.zuruck/],
  returns: [/\breturns?\b|\breturned\b|send (it|them) back|\bretours?\b|retourner|renvoy|devoluci|devolver|ruckgabe|zurucksend|zuruckgeben|umtausch/],
  cancellation: [/cancel|reschedul|annul|cancela|storn|deplacer (mon|votre) rendez|verschieben/],
  shipping_time: [
    // "3 days", "2-3 days", "2 to 3 days": the second number only after a dash or a word, so no run of
    // digits can be split between the two numbers.
    "\\b\\d+(?:\\s*[-–]\\s*\\d+|\\s+(?:to|a|bis)\\s+\\d+)?\\s*(business |working )?(days?|jours?|dias?|tagen?|werktagen?|hours?|heures?|horas?|stunden?|weeks?|semaines?|semanas?|wochen?)\\b",
    "next.day",
    "same.day",
    "overnight",
    "\\bexpress\\b",
    "\\b(24|48|72)\\s?h\\b",
    "(fast|quick|rapid) (shipping|delivery|dispatch)",
    "ships? (quickly|fast|today)",
    "expedi(e|ons) rapidement",
    "livraison (rapide|express)",
    "envio (rapido|urgente)",
    "enviamos rapido",
    "schnell(e|er)? (lieferung|versand)",
    "versenden schnell",
    "jours ouvres",
    "dias habiles",
    "werktag",
  ].map((source) => new RegExp(source)),
  scarcity: [
    "in stock",
    "out of stock",
    "limited (stock|edition|offer|time|availability|quantit|places|slots)",
    "only \\d+ left",
    "while (stocks?|supplies) last",
    "(few|last) (left|slots|places|units)",
    "selling fast",
    "last chance",
    "\\bhurry",
    "sell out",
    "stocks? limite",
    "derniere chance",
    "plus que \\d+",
    "limite des stocks",
    "quelques (creneaux|places)",
    "(offre|places) limitee",
    "ultimas unidades",
    "existencias",
    "(oferta|plazas) limitad",
    "ultima oportunidad",
    "solo quedan",
    "pocas plazas",
    "begrenzt",
    "solange der vorrat",
    "nur noch \\d+",
    "letzte chance",
    "vorrat",
  ].map((source) => new RegExp(source)),
};

/** Lower case, accents removed: one pattern then matches `Vérifié` and `verifie`. */
function fold(text: string): string {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

/** The kinds of claim a text makes. */
export function findClaims(text: string): ClaimKind[] {
  const folded = fold(String(text ?? ""));
  return claimKinds.filter((kind) => claimPatterns[kind].some((pattern) => pattern.test(folded)));
}

/** The kinds of claim the merchant's own words make: those a page may repeat. */
export function suppliedClaims(input: GenerationInput): Set<ClaimKind> {
  const words = [input.product.title, input.product.description ?? "", input.marketing_angle ?? ""].join("\n");
  return new Set(findClaims(words));
}

/** The claims in `text` that the merchant did not supply. */
export function unsuppliedClaims(text: string, supplied: ReadonlySet<ClaimKind>): ClaimKind[] {
  return findClaims(text).filter((kind) => !supplied.has(kind));
}

const CURRENCY_SIGN = /[$€£¥₹₩]|\b(usd|eur|gbp|chf|jpy|cad|aud|us\$)\b/i;

/**
 * True when a text quotes an amount of money: copy must carry `{price}` tokens, so any written
 * amount is either stale once the currency changes, or invented.
 */
export function quotesAmount(text: string, currency: string): boolean {
  const value = String(text ?? "");
  const code = currencyCodePattern(currency);
  return /\d/.test(value) && (CURRENCY_SIGN.test(value) || (code?.test(value) ?? false));
}

/** The page currency's code as a whole word (`\bEUR\b`), or null when `currency` is not three capitals. */
export function currencyCodePattern(currency: string): RegExp | null {
  return /^[A-Z]{3}$/.test(currency) ? new RegExp(`\\b${currency}\\b`, "i") : null;
}
