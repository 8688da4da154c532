import { html } from "../html.js";

/** A money field's value for the API: a number, or null when left empty (optional prices). */
export const money = (value: FormDataEntryValue | null) => (value === null || String(value).trim() === "" ? null : Number(value));
/** Image URLs typed one per line. */
export const urls = (value: FormDataEntryValue | null) => String(value ?? "").split(/\s+/).map((s) => s.trim()).filter(Boolean);

/** The fields a product create or update takes, read from a form (empty optional prices become null). */
export function productBody(form: HTMLFormElement): Record<string, unknown> {
  const f = new FormData(form);
  const body: Record<string, unknown> = {
    title: f.get("title"),
    description: String(f.get("description") ?? "") || null,
    price: Number(f.get("price")),
    original_price: money(f.get("original_price")),
    delivery_price: money(f.get("delivery_price")),
    product_type: f.get("product_type"),
  };
  const images = urls(f.get("images"));
  if (images.length) body.images = images;
  return body;
}

/**
 * The fields of a product, for creating one or editing it: every field the API takes, the type's choices
 * from the API's schema (`types`), and image URLs to add. The inputs are uncontrolled (`defaultValue`): a live
 * refresh of the view re-renders them without undoing what the user typed (a form shows a new product by its key).
 */
export function ProductFields({ product, types, prefix }: { product?: any; types: string[]; prefix: string }) {
  const p = product ?? {};
  return html`
    <label>Title <input name="title" required maxlength="200" defaultValue=${p.title ?? ""} /></label>
    <label>Description <textarea name="description" maxlength="5000">${p.description ?? ""}</textarea></label>
    <div class="colours">
      <label>Price <input name="price" type="number" min="0" step="0.01" required defaultValue=${p.price ?? ""} /></label>
      <label>Original price <input name="original_price" type="number" min="0" step="0.01" defaultValue=${p.original_price ?? ""} /></label>
      <label>Delivery price <input name="delivery_price" type="number" min="0" step="0.01" defaultValue=${p.delivery_price ?? ""} /></label>
    </div>
    <label>Type <select name="product_type">${types.map((t) => html`<option selected=${t === (p.product_type ?? types[0])}>${t}</option>`)}</select></label>
    <label for=${`${prefix}-images`}>${product ? "Add image URLs" : "Image URLs"} <span class="small">(one per line, http or https)</span></label>
    <textarea id=${`${prefix}-images`} name="images" rows="2"></textarea>`;
}
