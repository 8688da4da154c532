import type { CheckoutField } from "../generation/checkout-fields.js";
import type { CheckoutSection } from "../generation/content.js";
import { escapeHtml, toSafeAction } from "./escape.js";
import { renderPriceBlock } from "./price-block.js";
import type { RenderContext } from "./render-context.js";

/** Longest value accepted per field; the same bound is enforced on submission. */
export const maxFieldLength = 2000;

/** Browser autofill hints for the keys the default fields use. */
const autocomplete: Record<string, string> = {
  name: "name",
  full_name: "name",
  phone: "tel",
  email: "email",
  address: "street-address",
  city: "address-level2",
  zip: "postal-code",
  postal_code: "postal-code",
  country: "country-name",
};

/**
 * The checkout section: a POST form built from the page's checkout fields, with the price block
 * beside the submit button (what the buyer is ordering at what price). Without an action (the
 * builder preview) the fields sit in a disabled fieldset, so the form cannot be submitted, and a
 * note says why. What the form does with the details is said in the page's footer.
 */
export function renderCheckoutSection(ctx: RenderContext, section: CheckoutSection): string {
  const ui = ctx.locale.ui;
  const action = ctx.options.checkoutAction === null ? null : toSafeAction(ctx.options.checkoutAction);
  const fields = (ctx.page.checkout_fields ?? []).map((field) => renderField(ctx, field)).join("\n");
  const hasRequired = (ctx.page.checkout_fields ?? []).some((field) => field.is_required);
  const formOpen = action
    ? `<form method="post" action="${escapeHtml(action)}" accept-charset="utf-8" class="checkout-form">`
    : `<form method="post" class="checkout-form" aria-disabled="true">`;
  return `<section class="section checkout" id="${escapeHtml(section.id)}">
<div class="container checkout-box">
<h2>${escapeHtml(section.title)}</h2>
${action ? "" : `<p class="preview-note" role="note">${escapeHtml(ui.previewNote)}</p>`}
${formOpen}
<fieldset${action ? "" : " disabled"}>
${hasRequired ? `<p class="hint">${escapeHtml(ui.requiredHint)}</p>` : ""}
${fields}
<div class="order-summary">${renderPriceBlock(ctx)}</div>
<button type="submit" class="button">${escapeHtml(section.submit_label)}</button>
</fieldset>
</form>
</div>
</section>`;
}

function renderField(ctx: RenderContext, field: CheckoutField): string {
  const key = String(field.field_key).replace(/[^a-z0-9_]/g, "");
  const id = `field-${key}`;
  const required = field.is_required ? " required" : "";
  const mark = field.is_required
    ? `<span class="required-mark" aria-hidden="true">*</span><span class="visually-hidden"> (${escapeHtml(ctx.locale.ui.requiredMark)})</span>`
    : "";
  const hint = autocomplete[key] ? ` autocomplete="${autocomplete[key]}"` : "";
  const label = `<label for="${id}">${escapeHtml(field.label)}${mark}</label>`;
  let control: string;
  switch (field.field_type) {
    case "textarea":
      control = `<textarea id="${id}" name="${key}" rows="4" maxlength="${maxFieldLength}"${hint}${required}></textarea>`;
      break;
    case "select": {
      const options = (field.options ?? []).map((option) => `<option value="${escapeHtml(option)}">${escapeHtml(option)}</option>`);
      control = `<select id="${id}" name="${key}"${required}><option value="">${escapeHtml(ctx.locale.ui.choose)}</option>${options.join("")}</select>`;
      break;
    }
    case "date":
      control = `<input type="date" id="${id}" name="${key}"${required}>`;
      break;
    default: {
      const type = field.field_type === "tel" || field.field_type === "email" ? field.field_type : "text";
      control = `<input type="${type}" id="${id}" name="${key}" maxlength="${maxFieldLength}"${hint}${required}>`;
    }
  }
  return `<div class="field">${label}${control}</div>`;
}
