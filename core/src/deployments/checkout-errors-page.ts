import { resolveLocale } from "../generation/locales/resolve-locale.js";
import { escapeHtml, toLangAttribute } from "../render/escape.js";
import { renderFooter } from "../render/render-page.js";
import type { CheckoutFieldError } from "../render/checkout-submission.js";
import type { SiteSnapshot } from "./deployment-view.js";

/**
 * The answer to a refused checkout post: what was wrong with each field, and a way back to the form.
 * Browsers check the same rules first; this is what a post that skipped them (or a script) sees.
 */
export function renderCheckoutErrors(site: SiteSnapshot, errors: CheckoutFieldError[]): string {
  const lang = toLangAttribute(site.page.language);
  const footer = renderFooter({ locale: resolveLocale(lang).locale, kind: site.page.product.product_type === "service" ? "service" : "physical" });
  const items = errors.map((e) => `<li data-field="${escapeHtml(e.field_key)}">${escapeHtml(e.message)}</li>`).join("\n");
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(site.page.product.title)}: please check the form</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}li{color:#b91c1c}</style>
</head>
<body>
<main>
<h1>Please check the form</h1>
<ul class="checkout-errors">
${items}
</ul>
<p><a href="./#checkout">Back to the order form</a></p>
</main>
${footer}
</body>
</html>
`;
}
