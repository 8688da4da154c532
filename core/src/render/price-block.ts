import { escapeHtml } from "./escape.js";
import type { RenderContext } from "./render-context.js";

/**
 * The price in the page currency; the original price struck through with the saving when it is
 * higher; and, for a physical product with a known delivery price, the delivery line.
 */
export function renderPriceBlock(ctx: RenderContext): string {
  const { product } = ctx.page;
  const ui = ctx.locale.ui;
  const original = product.original_price;
  const discounted = original != null && Number.isFinite(original) && original > product.price;
  const parts = [`<span class="price-current">${escapeHtml(ctx.money(product.price))}</span>`];
  if (discounted) {
    const percent = Math.round(((original - product.price) / original) * 100);
    parts.push(`<s class="price-original">${escapeHtml(ctx.money(original))}</s>`);
    if (percent > 0) parts.push(`<span class="badge">${escapeHtml(ui.save(percent))}</span>`);
  }
  let delivery = "";
  if (ctx.kind === "physical" && product.delivery_price != null && Number.isFinite(product.delivery_price)) {
    const text = product.delivery_price <= 0 ? ui.freeDelivery : ui.deliveryPrice(ctx.money(product.delivery_price));
    delivery = `<p class="delivery">${escapeHtml(text)}</p>`;
  }
  return `<p class="price">${parts.join(" ")}</p>${delivery}`;
}
