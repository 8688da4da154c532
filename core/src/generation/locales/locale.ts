/**
 * The shape every locale file fills in. The product name only appears as a label (a heading or an
 * alt text): any name then reads naturally, with no guess at its article or gender.
 */

/** Languages with hand-written phrases. */
export type LocaleCode = "en" | "fr" | "es" | "de";

/** The tone a marketing angle selects; `neutral` when none was recognised. */
export type Tone = "neutral" | "luxury" | "budget" | "eco" | "urgency" | "gift";

/** Phrases that differ between a physical product and a service. */
export interface ByType<T> {
  physical: T;
  service: T;
}

/**
 * All the phrases of one language. The content rule (DESIGN §7) applies to every phrase: each one
 * states a fact the merchant gave, how this page works (a form, no payment taken here), or is a
 * plain call to action. No reviews, ratings, guarantees, return or cancellation terms, delivery
 * times or stock claims. Amounts are never part of the copy: the renderer shows the price, saving
 * and delivery price in one block, beside the headline and again beside the order button.
 */
export interface Locale {
  code: LocaleCode;
  /** A call to action per tone, used in the sub-headline; it claims nothing about the product. */
  toneLine: Record<Tone, ByType<string>>;
  ctaLabel: ByType<string>;
  /** Heading of the description's remainder (what the hero's first sentence leaves out). */
  detailsTitle: string;
  /** Heading of the photos after the first (which the hero shows). */
  galleryTitle: string;
  /** Alt text of photo `index` (1-based, the hero's photo being 1). */
  galleryAlt: (title: string, index: number) => string;
  checkoutTitle: ByType<string>;
  submitLabel: ByType<string>;
  /**
   * The footer's sentence on what the form does with the details it takes: they go to the seller with the
   * order, and no payment is taken. Rendered on every page, so it is said once, in the page's language.
   */
  footer: ByType<string>;
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
