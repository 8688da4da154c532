import { z } from "zod";
import { pageContentSchema } from "./content.js";
import { claimKinds } from "./content-rule.js";
import { copyTokens } from "./copy-tokens.js";
import { formatPrice } from "./format-price.js";
import type { GenerationInput } from "./generation-input.js";

/** Computed once: the schema is static and its JSON form is a few kilobytes. */
let contentJsonSchema: string | undefined;

/** The JSON Schema the model is asked to follow; zod still validates the answer afterwards. */
function schemaText(): string {
  contentJsonSchema ??= JSON.stringify(z.toJSONSchema(pageContentSchema));
  return contentJsonSchema;
}

/** The system and user messages of a chat-completions request for one page. */
export function buildPageMessages(input: GenerationInput): { role: "system" | "user"; content: string }[] {
  const { product } = input;
  const money = (amount: number | null) => (amount == null ? null : formatPrice(amount, input.currency, input.language));
  const facts = {
    title: product.title,
    description: product.description,
    product_type: product.product_type,
    price: money(product.price),
    original_price: product.original_price != null && product.original_price > product.price ? money(product.original_price) : null,
    delivery_price: product.product_type === "physical" ? money(product.delivery_price) : null,
    currency: input.currency,
    image_urls: product.images.map((image) => image.url),
    marketing_angle: input.marketing_angle ?? null,
  };
  const system = [
    "You write conversion-focused landing page copy for a single product or service.",
    "Answer with one JSON object and nothing else. It must match this JSON Schema:",
    schemaText(),
    "Rules: write every string in the requested language with correct grammar and accents.",
    "Content rule: state only facts given in the product facts (title, description, prices, delivery price, product type,",
    "images, marketing angle) or that follow from them (a saving computed from price and original_price).",
    `Never write testimonials, reviews, ratings, guarantees, return or cancellation policies, delivery or shipping times,`,
    `stock or scarcity claims unless the facts state them; answers that do are trimmed (checked kinds: ${claimKinds.join(", ")}).`,
    "Leave out a section when there is nothing true to say in it.",
    "Never write an amount of money or a currency: write these tokens instead, they are filled when the page is shown:",
    `${copyTokens.map((name) => `{${name}}`).join(", ")} (saving and original_price only when original_price is given,`,
    "delivery_price only for a physical product whose delivery price is given).",
    "Use the product title as a label or heading (e.g. before a colon), not inside a sentence that needs an article.",
    "Use these sections in this order, with these ids: hero (id \"hero\"), benefits (\"benefits\", 1 to 6 facts),",
    "gallery (\"gallery\", only when there are at least two image URLs), faq (\"faq\", questions the facts answer),",
    "offer (\"offer\"), checkout (\"checkout\"). No other section types.",
    "Only use the given image URLs; set hero.image_url to the first one, or null when there is none.",
    "The checkout form takes no payment: it sends the buyer's details to the merchant.",
    "If a marketing angle is given, let it set the tone of the headline, sub-headline and calls to action.",
  ].join("\n");
  const user = [`Language: ${input.language}`, "Product facts (JSON):", JSON.stringify(facts, null, 2)].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}
