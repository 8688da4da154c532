import type { PageContent } from "./content.js";
import { formatPrice } from "./format-price.js";
import type { GenerationProduct } from "./generation-input.js";

/**
 * Stored copy never contains an amount: a currency change must show on the next render, and copy
 * written with `65,00 $US` inside would keep saying so. Generators write these tokens instead, and
 * the renderer replaces them with amounts formatted in the page's current currency and language.
 */
export const copyTokens = ["price", "original_price", "saving", "saving_percent", "delivery_price"] as const;

/** A token name. */
export type CopyToken = (typeof copyTokens)[number];

/** The token as it appears in copy, e.g. `{price}`. */
export const token = (name: CopyToken) => `{${name}}`;

const TOKEN = /\{(price|original_price|saving|saving_percent|delivery_price)\}/g;

/** The values the tokens stand for; a token whose fact is absent becomes empty. */
export type CopyValues = Record<CopyToken, string>;

/** Formats the product's amounts for one render. */
export function toCopyValues(product: GenerationProduct, currency: string, language: string): CopyValues {
  const money = (amount: number) => formatPrice(amount, currency, language);
  const original = product.original_price;
  const discounted = original != null && Number.isFinite(original) && original > product.price && product.price >= 0;
  const delivery = product.delivery_price;
  return {
    price: money(product.price),
    original_price: discounted ? money(original) : "",
    saving: discounted ? money(original - product.price) : "",
    saving_percent: discounted ? String(Math.round(((original - product.price) / original) * 100)) : "",
    delivery_price: delivery != null && Number.isFinite(delivery) ? money(delivery) : "",
  };
}

/** Replaces the tokens in one string. */
export function fillCopy(text: string, values: CopyValues): string {
  return typeof text === "string" ? text.replace(TOKEN, (_, name: CopyToken) => values[name]) : text;
}

/** The content with every string filled (a deep copy; the stored content is left alone). */
export function fillContent(content: PageContent, values: CopyValues): PageContent {
  const fill = (value: unknown): unknown => {
    if (typeof value === "string") return fillCopy(value, values);
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return fill(content) as PageContent;
}
