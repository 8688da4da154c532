import { z } from "zod";

/**
 * The generated content of a landing page. There is no section for testimonials, ratings or
 * guarantees: nothing a merchant gives the API can back them (DESIGN §7, content rule). Amounts
 * are never written into the copy: it carries tokens such as `{price}` (see `copy-tokens.ts`)
 * that the renderer fills in the page's current currency. The same schema validates answers from an AI
 * generator, so every string is bounded: a model that rambles or loops is rejected rather
 * than stored and rendered.
 */

const text = (max: number) => z.string().trim().min(1).max(max);

/** Section ids are stable anchors (`#checkout`) and keys for later edits. */
const sectionId = z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, "must be a lower-case slug");

/** Absolute http(s) URL or a path on the serving host (generated media lives there). */
const imageUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:\/\/[^\s]+$/i.test(value) || /^\/(?!\/)[^\s]*$/.test(value), {
    message: "must be an http(s) URL or an absolute path",
  });

/** Hero: the first screen, with the main call to action. */
export const heroSectionSchema = z.object({
  type: z.literal("hero"),
  id: sectionId,
  headline: text(160),
  subheadline: text(400),
  cta_label: text(60),
  image_url: imageUrl.nullable(),
});

/** The merchant's description beyond what the hero already says (its first sentence). */
export const detailsSectionSchema = z.object({
  type: z.literal("details"),
  id: sectionId,
  title: text(160),
  text: text(2000),
});

/**
 * Up to six short points about the product, each a fact the merchant gave, so there may be as few
 * as one. Amounts are not points: the price block shows them (see `render/single-place.ts`).
 */
export const benefitsSectionSchema = z.object({
  type: z.literal("benefits"),
  id: sectionId,
  title: text(160),
  items: z.array(z.object({ title: text(120), text: text(600) })).min(1).max(6),
});

/** Product photos beyond the hero image. */
export const gallerySectionSchema = z.object({
  type: z.literal("gallery"),
  id: sectionId,
  title: text(160),
  images: z.array(z.object({ url: imageUrl, alt: text(200) })).min(1).max(20),
});

/** Questions and answers. */
export const faqSectionSchema = z.object({
  type: z.literal("faq"),
  id: sectionId,
  title: text(160),
  items: z.array(z.object({ question: text(200), answer: text(1000) })).min(1).max(10),
});

/** A closing call to action (AI content, and content stored by earlier versions); the price is not repeated in it. */
export const offerSectionSchema = z.object({
  type: z.literal("offer"),
  id: sectionId,
  title: text(160),
  text: text(800),
  cta_label: text(60),
});

/**
 * Labels around the checkout form; the fields themselves are page data, not copy. What the form does
 * with the details is said once, by the renderer, in the page's footer (a `note` from content stored
 * by earlier versions is dropped).
 */
export const checkoutSectionSchema = z.object({
  type: z.literal("checkout"),
  id: sectionId,
  title: text(160),
  submit_label: text(60),
});

/** Any section, told apart by `type`. */
export const sectionSchema = z.discriminatedUnion("type", [
  heroSectionSchema,
  detailsSectionSchema,
  benefitsSectionSchema,
  gallerySectionSchema,
  faqSectionSchema,
  offerSectionSchema,
  checkoutSectionSchema,
]);

/** Validates whole page content (template output and AI answers alike). */
export const pageContentSchema = z
  .object({
    language: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, "must be a language tag"),
    headline: text(160),
    subheadline: text(400),
    sections: z.array(sectionSchema).min(1).max(12),
  })
  .superRefine((content, ctx) => {
    // Ids are anchors in the rendered page; duplicates would make links ambiguous.
    const seen = new Set<string>();
    content.sections.forEach((section, index) => {
      if (seen.has(section.id)) {
        ctx.addIssue({ code: "custom", path: ["sections", index, "id"], message: `duplicate section id "${section.id}"` });
      }
      seen.add(section.id);
    });
  });

/** Generated content of a page. */
export type PageContent = z.infer<typeof pageContentSchema>;
/** One section of the page content. */
export type Section = z.infer<typeof sectionSchema>;
/** Section type names. */
export type SectionType = Section["type"];
/** The section of a given type. */
export type SectionOf<T extends SectionType> = Extract<Section, { type: T }>;
/** Hero section. */
export type HeroSection = SectionOf<"hero">;
/** Details section. */
export type DetailsSection = SectionOf<"details">;
/** Benefits section. */
export type BenefitsSection = SectionOf<"benefits">;
/** Gallery section. */
export type GallerySection = SectionOf<"gallery">;
/** FAQ section. */
export type FaqSection = SectionOf<"faq">;
/** Offer section. */
export type OfferSection = SectionOf<"offer">;
/** Checkout section. */
export type CheckoutSection = SectionOf<"checkout">;
