import { trimEndChars } from "../trim.js";
/**
 * Escapes text for HTML content and for double- or single-quoted attribute values. Every string
 * that came from a user, a product or a model goes through this before reaching the page.
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * A value placed inside a `<style>` element, where HTML escaping does not apply: characters that
 * could end the declaration, the rule or the element (`; { } < > \` and line breaks) are removed.
 * Theme values are validated before they get here; this is the second line of defence.
 */
export function sanitizeCssValue(value: unknown): string {
  return String(value ?? "").replace(/[;{}<>\\\r\n\u0000]/g, "").replace(/\/\*|\*\//g, "").trim();
}

/**
 * A URL the page may load or link to: absolute http(s), or a path on the serving host (made
 * absolute with `assetBase` when one is given). Anything else (`javascript:`, `data:`,
 * protocol-relative `//host`) gives null, and the element is left out.
 */
export function toSafeUrl(value: unknown, assetBase?: string): string | null {
  if (typeof value !== "string") return null;
  const url = value.trim();
  if (!url || url.length > 2048 || /[\s\u0000-\u001f]/.test(url)) return null;
  if (/^https?:\/\/[^/\\]/i.test(url)) return url;
  if (/^\/(?![/\\])/.test(url)) return assetBase ? `${trimEndChars(assetBase, "/")}${url}` : url;
  return null;
}

/** True for an absolute http(s) URL (Open Graph consumers need absolute URLs). */
export function isAbsoluteHttpUrl(value: string | null): value is string {
  return value !== null && /^https?:\/\/[^/\\]/i.test(value);
}

/** A `lang` attribute value: the tag when it looks like BCP 47, else `en`. */
export function toLangAttribute(language: unknown): string {
  return typeof language === "string" && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(language) ? language : "en";
}

/**
 * A form action: absolute http(s), or a relative reference (`checkout`, `./checkout`,
 * `/sites/a/b/checkout`) used as given. Anything with another scheme gives null.
 */
export function toSafeAction(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const url = value.trim();
  if (!url || url.length > 2048 || /[\s\u0000-\u001f\\]/.test(url) || url.startsWith("//")) return null;
  if (/^https?:\/\/[^/]/i.test(url)) return url;
  // A relative reference has no scheme: no ":" before the first "/", "?" or "#".
  return /^[^:/?#]*(?:[/?#]|$)/.test(url) && !/^[a-z][a-z0-9+.-]*:/i.test(url) ? url : null;
}
