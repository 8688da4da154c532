/**
 * The shape every locale file fills in. Phrases are functions of precomputed facts so that
 * each language can order words its own way (and avoid gendered articles around the title).
 */

/** Languages with hand-written phrases. */
export type LocaleCode = "en" | "fr" | "es" | "de";

/** The tone a marketing angle selects; `neutral` when none was recognised. */
export type Tone = "neutral" | "luxury" | "budget" | "eco" | "urgency" | "gift";

/** How delivery is described for a physical product. */
export type DeliveryFact = { kind: "free" } | { kind: "paid"; price: string } | { kind: "unknown" };

/** Product facts, already formatted for the locale, that phrases interpolate. */
export interface CopyFacts {
  title: string;
  /** Formatted price, e.g. `19,99 €`. */
  price: string;
  /** Formatted original price when it is higher than the price. */
  originalPrice: string | null;
  /** Formatted saving amount, when there is one. */
  savings: string | null;
  savingsPercent: number | null;
  /** Delivery wording input; `unknown` for services too (never used there). */
  delivery: DeliveryFact;
  /** First sentence of the description, if any. */
  summary: string | null;
}

/** A benefit card. */
export interface BenefitCopy {
  title: string;
  text: string;
}

/** A question and its answer. */
export interface QaCopy {
  question: string;
  answer: string;
}

/** Phrases that differ between a physical product and a service. */
export interface ByType<T> {
  physical: T;
  service: T;
}

type Phrase = (facts: CopyFacts) => string;

/** All the phrases of one language. */
export interface Locale {
  code: LocaleCode;
  /** Two or more variants per tone; one is picked from a hash of the title. */
  headlines: Record<Tone, Phrase[]>;
  subheadlines: Record<Tone, ByType<Phrase>>;
  /** Sub-headline when the angle is free text: the text is used as written. */
  customSubheadline: (facts: CopyFacts, angle: string) => string;
  ctaLabel: ByType<string>;
  benefitsTitle: Phrase;
  /** The benefit put first to carry the tone. */
  toneBenefit: Record<Exclude<Tone, "neutral">, ByType<(facts: CopyFacts) => BenefitCopy>>;
  aboutBenefit: (facts: CopyFacts) => BenefitCopy;
  savingsBenefit: (facts: CopyFacts) => BenefitCopy;
  benefitPool: ByType<((facts: CopyFacts) => BenefitCopy)[]>;
  galleryTitle: Phrase;
  galleryAlt: (facts: CopyFacts, index: number) => string;
  socialProofTitle: string;
  quotes: ByType<Phrase[]>;
  people: { author: string; role: ByType<string> }[];
  faqTitle: string;
  faq: ByType<(facts: CopyFacts) => QaCopy[]>;
  offerTitle: Record<Tone, string>;
  offerText: ByType<Phrase>;
  guarantee: ByType<string>;
  checkoutTitle: ByType<string>;
  submitLabel: ByType<string>;
  checkoutNote: ByType<string>;
  /** Default labels of the generated checkout fields. */
  fieldLabels: { name: string; phone: string; address: string; city: string; email: string; date: string; notes: string };
  /** Short strings the renderer needs around the copy. */
  ui: {
    deliveryPrice: (price: string) => string;
    freeDelivery: string;
    save: (percent: number) => string;
    requiredHint: string;
    requiredMark: string;
    choose: string;
    previewNote: string;
    previewBanner: string;
    confirmationTitle: string;
    confirmationText: ByType<(title: string) => string>;
    yourDetails: string;
    back: string;
    notFoundTitle: string;
    notFoundText: string;
  };
}
