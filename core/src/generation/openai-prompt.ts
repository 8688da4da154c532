import { z } from "zod";
import { pageContentSchema } from "./content.js";
import { claimKinds } from "./content-rule.js";
import { copyTokens } from "./copy-tokens.js";
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
  // No amounts: the page shows the price block itself, so a model that never sees them cannot restate them.
  const facts = {
    title: product.title,
    description: product.description,
    product_type: product.product_type,
    image_urls: product.images.map((image) => image.url),
    marketing_angle: input.marketing_angle ?? null,
  };
  const system = [
    "You write conversion-focused landing page copy for a single product or service.",
    "Answer with one JSON object and nothing else. It must match this JSON Schema:",
    schemaText(),
    "Rules: write every string in the requested language with correct grammar and accents.",
    "Content rule: state only facts given in the product facts (title, description, product type, images,",
    "marketing angle).",
    `Never write testimonials, reviews, ratings, guarantees, return or cancellation policies, delivery or shipping times,`,
    `stock or scarcity claims unless the facts state them; answers that do are trimmed (checked kinds: ${claimKinds.join(", ")}).`,
    "Leave out a section when there is nothing true to say in it. Say each fact once.",
    "Never write a price, saving, delivery price, amount of money or currency, not even as a token such as",
    `${copyTokens.map((name) => `{${name}}`).join(", ")}: the page shows them itself beside the headline and the order button,`,
    "and sentences that state them are removed.",
    "Never write how to order, how to pay or that no payment is taken: the page's footer says what the form does.",
    "Use the product title as a label or heading, not inside a sentence that needs an article.",
    "Use these sections in this order, with these ids: hero (id \"hero\"), details (\"details\", the description's",
    "facts the hero does not already state), benefits (\"benefits\", 1 to 6 facts from the description that no other",
    "section states), gallery (\"gallery\", the image URLs after the first, only when there are at least two),",
    "faq (\"faq\", only questions the description answers and no other section does), checkout (\"checkout\").",
    "No other section types.",
    "Only use the given image URLs; set hero.image_url to the first one, or null when there is none.",
    "If a marketing angle is given, let it set the tone of the headline, sub-headline and calls to action.",
  ].join("\n");
  const user = [`Language: ${input.language}`, "Product facts (JSON):", JSON.stringify(facts, null, 2)].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}
