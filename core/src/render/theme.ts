import { z } from "zod";
import { COLOR_MAX_LENGTH, COLOR_PATTERN, isColor } from "./color.js";

/** A page's theme; the keys are camelCase on the wire as well (DESIGN §7). */
export interface GlobalTheme {
  currency: string;
  primaryColor: string;
  secondaryColor: string;
  accentColor: string;
  backgroundColor: string;
  textColor: string;
  fontFamily: string;
}

/** A page's SEO settings; every key is optional. */
export interface SeoConfig {
  title?: string;
  description?: string;
  keywords?: string[] | string;
  ogImage?: string;
  canonicalUrl?: string;
  noindex?: boolean;
}

/** The keys a theme patch may carry, in the order error messages list them. */
export const globalThemeKeys = ["currency", "primaryColor", "secondaryColor", "accentColor", "backgroundColor", "textColor", "fontFamily"] as const;
/** The keys an SEO patch may carry. */
export const seoConfigKeys = ["title", "description", "keywords", "ogImage", "canonicalUrl", "noindex"] as const;

const systemFontStack = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

/** The theme a page starts with before the creation's `design` seeds its colours. */
export function defaultTheme(currency: string): GlobalTheme {
  return {
    currency: isCurrencyCode(currency?.toUpperCase?.()) ? currency.toUpperCase() : "USD",
    primaryColor: "#1d4ed8",
    secondaryColor: "#7c3aed",
    accentColor: "#f59e0b",
    backgroundColor: "#ffffff",
    textColor: "#111827",
    fontFamily: systemFontStack,
  };
}

/**
 * A complete theme from a possibly partial or stale one (keys removed by a merge patch, or
 * written before validation tightened): valid values are kept, the rest come from the defaults.
 */
export function toGlobalTheme(value: unknown, currency = "USD"): GlobalTheme {
  const input = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const theme = defaultTheme(isCurrencyCode(input.currency) ? input.currency : currency);
  for (const key of ["primaryColor", "secondaryColor", "accentColor", "backgroundColor", "textColor"] as const) {
    if (isColor(input[key])) theme[key] = (input[key] as string).trim();
  }
  if (isFontStack(input.fontFamily)) theme.fontFamily = input.fontFamily.trim();
  return theme;
}

/** ISO 4217 shape: three upper-case letters. */
export function isCurrencyCode(value: unknown): value is string {
  return typeof value === "string" && /^[A-Z]{3}$/.test(value);
}

/**
 * A font stack safe to place in CSS: names, quotes, commas and spaces only, not blank. Quotes must pair
 * up, or the rest of the stylesheet would be swallowed into a string. One pattern (with the `u` flag JSON
 * Schema patterns use), so the document states exactly this rule.
 */
export const FONT_STACK_PATTERN = `^(?=[^"]*(?:"[^"]*"[^"]*)*$)(?=[^']*(?:'[^']*'[^']*)*$)(?=.*[^ ])[\\p{L}\\p{N} ,'"._-]+$`;
const fontStackRegex = new RegExp(FONT_STACK_PATTERN, "u");

/** Code points in `value`, counting no further than `max + 1`. */
function codePointsUpTo(value: string, max: number): number {
  let count = 0;
  for (const _ of value) if (++count > max) break;
  return count;
}

/**
 * True for font stacks matching {@link FONT_STACK_PATTERN}, at most 200 characters counted as zod counts them
 * (code points): a name in letters outside the BMP that the schema let through is not dropped here.
 */
export function isFontStack(value: unknown): value is string {
  return typeof value === "string" && value.length <= 400 && codePointsUpTo(value, 200) <= 200 && fontStackRegex.test(value);
}

/** Strict object whose unknown-key error names the keys that are allowed. */
function patchObject<S extends z.ZodRawShape>(what: string, shape: S) {
  const allowed = Object.keys(shape).join(", ");
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `Unknown ${what} key(s): ${issue.keys.join(", ")}. Allowed keys: ${allowed}.` : undefined,
  });
}

/** A theme colour: the document carries the same pattern and length the server checks. */
export const colorSchema = z
  .string()
  // `abort`: a value over the length never reaches the pattern (zod runs later checks after a failed one).
  .max(COLOR_MAX_LENGTH, { message: `must be a colour of at most ${COLOR_MAX_LENGTH} characters`, abort: true })
  .regex(new RegExp(COLOR_PATTERN), "must be a colour: #rgb, #rrggbb, #rrggbbaa, rgb(), rgba(), hsl() or a CSS colour name")
  // Named, so the document writes the long pattern once (components.schemas.Color) and refers to it.
  .meta({ id: "Color", description: "#rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba(), hsl()/hsla() or a CSS colour name" });
/** A font stack, by the pattern the document carries too. */
export const fontStackSchema = z
  .string()
  .max(200, { message: "must be at most 200 characters", abort: true })
  .regex(new RegExp(FONT_STACK_PATTERN, "u"), "must be a font stack: names, quotes, commas and spaces only (no ; { } < >)")
  .meta({ id: "FontStack", description: "Font names, quotes, commas and spaces; quotes paired" });
const color = colorSchema;
const patchable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** A JSON Merge Patch for `global_theme`: each key a valid value, or null to reset it to the default. */
export const globalThemePatchSchema = patchObject("global_theme", {
  currency: patchable(z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR (three upper-case letters)")),
  primaryColor: patchable(color),
  secondaryColor: patchable(color),
  accentColor: patchable(color),
  backgroundColor: patchable(color),
  textColor: patchable(color),
  fontFamily: patchable(fontStackSchema),
});

/**
 * An absolute http(s) URL without white space. zod's URL check renders no protocol rule, so the pattern
 * states it; `format: uri` is put back because `.regex` replaces it in the rendered schema.
 */
export const httpUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an absolute http or https URL" })
  .max(2048, { message: "must be at most 2048 characters", abort: true })
  .regex(/^https?:\/\/\S+$/, "must be an absolute http or https URL without spaces")
  .meta({ format: "uri" });
const httpUrl = httpUrlSchema;

/** A JSON Merge Patch for `seo_config`: each key a valid value, or null to remove it. */
export const seoConfigPatchSchema = patchObject("seo_config", {
  // Trimmed and not blank: `\S` is how the document says "not blank".
  title: patchable(z.string().trim().min(1).max(200).meta({ pattern: "\\S" })),
  description: patchable(z.string().trim().min(1).max(500).meta({ pattern: "\\S" })),
  keywords: patchable(z.union([z.array(z.string().trim().min(1).max(100).meta({ pattern: "\\S" })).max(50), z.string().trim().max(1000)])),
  ogImage: patchable(httpUrl),
  canonicalUrl: patchable(httpUrl),
  noindex: patchable(z.boolean()),
});

/** Parsed theme patch. */
export type GlobalThemePatch = z.infer<typeof globalThemePatchSchema>;
/** Parsed SEO patch. */
export type SeoConfigPatch = z.infer<typeof seoConfigPatchSchema>;
