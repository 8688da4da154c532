import { resolveLocale } from "../generation/locales/resolve-locale.js";
import { renderDocument } from "./document-shell.js";
import { escapeHtml, toLangAttribute } from "./escape.js";
import { contentSecurityPolicy } from "./page-head.js";
import { renderStyles } from "./page-styles.js";
import { createRenderContext } from "./render-context.js";
import { renderFooter } from "./render-page.js";
import type { RenderablePage } from "./renderable-page.js";
import { defaultTheme, type GlobalTheme } from "./theme.js";

/** Head of a page that search engines should never index. */
function plainHead(title: string, theme: GlobalTheme): string {
  return [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<meta name="robots" content="noindex, nofollow">`,
    `<style>${renderStyles(theme)}</style>`,
  ].join("\n");
}

/**
 * The page shown after a checkout post was accepted: a thank-you in the page's language and
 * theme, and the submitted details (only the page's fields, in form order) so the buyer can check them;
 * the same footer as the page says where they went.
 */
export function renderCheckoutConfirmation(page: RenderablePage, submission: Record<string, string>): string {
  const ctx = createRenderContext(page, { checkoutAction: null });
  const ui = ctx.locale.ui;
  const rows = (page.checkout_fields ?? [])
    .filter((field) => Object.hasOwn(submission, field.field_key) && String(submission[field.field_key]).trim() !== "")
    .map((field) => `<dt>${escapeHtml(field.label)}</dt><dd>${escapeHtml(submission[field.field_key])}</dd>`);
  const body = `<main>
<section class="hero">
<div class="container">
<h1>${escapeHtml(ui.confirmationTitle)}</h1>
<p class="subheadline">${escapeHtml(ui.confirmationText[ctx.kind])}</p>
<p><strong>${escapeHtml(page.product.title)}</strong></p>
</div>
</section>
<section class="section">
<div class="container checkout-box">
${rows.length ? `<h2>${escapeHtml(ui.yourDetails)}</h2>\n<dl class="details-list">${rows.join("")}</dl>` : ""}
<p><a class="button" href="./">${escapeHtml(ui.back)}</a></p>
</div>
</section>
</main>
${renderFooter(ctx)}`;
  return renderDocument({ lang: ctx.lang, head: plainHead(`${ui.confirmationTitle} – ${page.product.title}`, ctx.theme), body });
}

/** The 404 page of the sites server, in the default theme. */
export function renderNotFoundPage(language = "en"): string {
  const lang = toLangAttribute(language);
  const ui = resolveLocale(lang).locale.ui;
  const body = `<main>
<section class="section">
<div class="container">
<h1>${escapeHtml(ui.notFoundTitle)}</h1>
<p>${escapeHtml(ui.notFoundText)}</p>
</div>
</section>
</main>`;
  return renderDocument({ lang, head: plainHead(ui.notFoundTitle, defaultTheme("USD")), body });
}
