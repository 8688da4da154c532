import { z } from "zod";
import { pageContentSchema } from "./content.js";
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
    "Use these sections in this order, with these ids: hero (id \"hero\"), benefits (\"benefits\", 3 to 6 items),",
    "gallery (\"gallery\", only when there are at least two image URLs), social_proof (\"social-proof\"), faq (\"faq\"),",
    "offer (\"offer\"), checkout (\"checkout\").",
    "Only use the given image URLs; set hero.image_url to the first one, or null when there is none.",
    "For a physical product the FAQ covers delivery and returns; for a service it covers booking and cancellation.",
    "Quote prices exactly as given. Do not invent discounts, certifications or guarantees beyond a plain return or cancellation policy.",
    "If a marketing angle is given, let it set the tone of the headline, sub-headline and benefits.",
  ].join("\n");
  const user = [`Language: ${input.language}`, "Product facts (JSON):", JSON.stringify(facts, null, 2)].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}
