import type { FetchLike } from "@lp/client";
import { CliError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";

/** A control of the site's checkout form, as the HTML declares it. */
export interface FormControl {
  name: string;
  type: string;
  required: boolean;
  options: string[];
}

/** What posting the checkout form did. */
export interface CheckoutPost {
  url: string;
  status: number;
  values: Record<string, string>;
}

const MAX_HTML = 2 * 1024 * 1024;

const decode = (text: string) =>
  text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];

/** Finds the checkout form of a deployed page: its action and controls. Null when the page has none. */
export function parseCheckoutForm(html: string): { action: string; controls: FormControl[] } | null {
  const form = /<form\b([^>]*\bclass="checkout-form"[^>]*)>([\s\S]*?)<\/form>/.exec(html);
  const action = form && attr(form[1], "action");
  if (!form || !action) return null;
  const controls: FormControl[] = [];
  for (const match of form[2].matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>|<(input|textarea)\b([^>]*)>/g)) {
    const [, selectAttrs, selectBody, tag, tagAttrs] = match;
    const attrs = selectAttrs ?? tagAttrs;
    const name = attr(attrs, "name");
    if (!name) continue;
    const options = selectBody ? [...selectBody.matchAll(/<option value="([^"]*)"/g)].map((o) => decode(o[1])).filter(Boolean) : [];
    const type = selectAttrs !== undefined ? "select" : tag === "input" ? (attr(attrs, "type") ?? "text") : tag;
    controls.push({ name: decode(name), type, required: /\brequired\b/.test(attrs), options });
  }
  return { action: decode(action), controls };
}

/** A value for a required field the fixture says nothing about, valid for its type. */
function sampleValue(control: FormControl, today: string): string {
  switch (control.type) {
    case "email":
      return "buyer@example.com";
    case "tel":
      return "+1 555 0100";
    case "date":
      return today;
    case "select":
      return control.options[0] ?? "";
    default:
      return "Sample";
  }
}

/**
 * Fetches the deployed page, fills its checkout form (the fixture's values by field key, a sample
 * value for a required field the fixture lacks) and posts it as a browser would.
 */
export async function postCheckoutForm(fetchFn: FetchLike, siteUrl: string, fixture: Record<string, unknown>, today: string): Promise<CheckoutPost> {
  const page = await fetchFn(siteUrl, { redirect: "follow" });
  const html = await page.text();
  if (page.status !== 200 || html.length > MAX_HTML) throw new CliError(EXIT.error, `GET ${siteUrl} answered ${page.status}; the deployed page could not be read.`, { code: "site_unavailable" });
  const form = parseCheckoutForm(html);
  if (!form) throw new CliError(EXIT.error, `${siteUrl} has no checkout form to post.`, { code: "checkout_form_missing" });
  const values: Record<string, string> = {};
  for (const control of form.controls) {
    const given = fixture[control.name];
    if (given !== undefined && given !== null) values[control.name] = String(given);
    else if (control.required) values[control.name] = sampleValue(control, today);
  }
  const url = new URL(form.action, siteUrl).toString();
  const response = await fetchFn(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    redirect: "manual",
  });
  if (response.status !== 200) {
    const text = (await response.text()).replace(/<(style|title|script)\b[\s\S]*?<\/\1>/g, " ").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim().slice(0, 300);
    throw new CliError(EXIT.error, `POST ${url} answered ${response.status}: ${text}`, { code: "checkout_rejected" });
  }
  await response.body?.cancel();
  return { url, status: response.status, values };
}
