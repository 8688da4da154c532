/**
 * The shape every locale file fills in. Phrases are functions of precomputed facts so that
 * each language can order words its own way. The product name only appears as a label (a heading,
 * or before a colon): any name then reads naturally, with no guess at its article or gender.
 */

/** Languages with hand-written phrases. */
export type LocaleCode = "en" | "fr" | "es" | "de";

/** The tone a marketing angle selects; `neutral` when none was recognised. */
export type Tone = "neutral" | "luxury" | "budget" | "eco" | "urgency" | "gift";

/** How delivery is described for a physical product. */
export type DeliveryFact = { kind: "free" } | { kind: "paid"; price: string } | { kind: "unknown" };

/**
 * Product facts that phrases interpolate. Amounts are copy tokens (`{price}`), filled at render
 * time in the page's current currency; the others are the merchant's own words.
 */
export interface CopyFacts {
  /** The product name, used as a label or heading, never inside a sentence that needs an article. */
  title: string;
  hasSaving: boolean;
  /** Delivery wording input; `unknown` for services too (never used there). */
  delivery: DeliveryFact;
  /** First sentence of the description, if any. */
  summary: string | null;
  /** The description when it says more than its first sentence (bounded). */
  details: string | null;
}

/** A point of the "at a glance" list. */
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

/**
 * All the phrases of one language. The content rule (DESIGN §7) applies to every phrase: each one
 * states a fact the merchant gave, how this page works (a form, no payment taken here), or is a
 * plain call to action. No reviews, ratings, guarantees, return or cancellation terms, delivery
 * times or stock claims.
 */
export interface Locale {
  code: LocaleCode;
  /** What separates a label from its value: `": "`, or `"\u00a0: "` in French typography. */
  colon: string;
  /** A call to action per tone, used in the sub-headline; it claims nothing about the product. */
  toneLine: Record<Tone, ByType<string>>;
  /** `{price}`, or `{price} instead of {original_price}`. */
  priceText: (facts: CopyFacts) => string;
  /** The delivery sentence for a known delivery price. */
  deliveryText: (delivery: Exclude<DeliveryFact, { kind: "unknown" }>) => string;
  ctaLabel: ByType<string>;
  overviewTitle: string;
  overview: {
    about: string;
    price: string;
    saving: string;
    /** `{saving}` off, `{saving_percent}`% less. */
    savingText: string;
    delivery: string;
    order: ByType<BenefitCopy>;
  };
  galleryTitle: string;
  galleryAlt: (facts: CopyFacts, index: number) => string;
  faqTitle: string;
  faq: {
    price: string;
    delivery: string;
    order: ByType<QaCopy>;
    payment: QaCopy;
  };
  offerTitle: Record<Tone, string>;
  checkoutTitle: ByType<string>;
  submitLabel: ByType<string>;
  /** What the form does: it sends details, takes no payment. */
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
    confirmationText: ByType<string>;
    yourDetails: string;
    back: string;
    notFoundTitle: string;
    notFoundText: string;
  };
}
