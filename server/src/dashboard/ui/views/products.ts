import { useEffect, useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html } from "../html.js";
import { go, toHash } from "../route.js";
import type { Outcome } from "./outcome.js";
import { ImageUpload, type UploadLimits } from "./image-upload.js";
import { ProductFields, productBody } from "./product-form.js";

const say = (o: Outcome | null) => o && html`<p role=${o.bad ? "alert" : "status"} class=${o.bad ? "error-text" : ""}>${o.text}</p>`;

/** One product opened (#/products/<id>): its images, every field editable, images removable, and delete. */
function ProductEditor({ account, id, types, limits, onDone }: { account: string; id: string; types: string[]; limits: UploadLimits; onDone: () => void }) {
  const [product, setProduct] = useState<any>(null);
  const [message, setMessage] = useState<Outcome | null>(null);
  const path = `/v1/accounts/${account}/products/${id}`;
  useEffect(() => void call("GET", path).then((a) => setProduct(a.ok ? a.json.data : { error: errorText(a) })), [path]);
  async function save(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const body = productBody(form);
    const remove = [...form.querySelectorAll<HTMLInputElement>('input[name="remove"]:checked')].map((i) => i.value);
    if (remove.length) body.remove_image_ids = remove;
    const a = await call("PATCH", path, { body });
    setMessage(a.ok ? { text: `Saved ${a.json.data.title}.`, bad: false } : { text: `Not saved: ${errorText(a)}`, bad: true });
    if (a.ok) setProduct(a.json.data);
  }
  async function remove() {
    if (!confirm(`Delete ${product.title}? Its pages stay, with the product as it was.`)) return;
    const a = await call("DELETE", path);
    if (!a.ok) return setMessage({ text: `Not deleted: ${errorText(a)}`, bad: true });
    onDone();
  }
  if (!product) return html`<section class="panel"><p>Loading...</p></section>`;
  if (product.error) return html`<section class="panel"><p role="alert">${product.error}</p></section>`;
  return html`<section class="panel" aria-labelledby="edit-title">
    <h2 id="edit-title">Edit ${product.title}</h2>
    <p class="mono small">${product.id}</p>
    <form class="form" key=${product.updated_at} onSubmit=${save}>
      <${ProductFields} product=${product} types=${types} prefix="edit" />
      <fieldset>
        <legend>Images (${product.images.length})</legend>
        ${product.images.length === 0 && html`<p class="hint">No images.</p>`}
        <ul class="grid">${product.images.map(
          (img: any) => html`<li class="product"><img src=${img.url} alt=${`Image ${img.display_order + 1} of ${product.title}`} width="160" height="120" loading="lazy" />
            <label><input type="checkbox" name="remove" value=${img.id} /> Remove</label></li>`,
        )}</ul>
      </fieldset>
      <button type="submit">Save product</button>
      <button type="button" class="danger" onClick=${remove}>Delete product</button>
      <button type="button" onClick=${onDone}>Close</button>
    </form>
    ${say(message)}
    <${ImageUpload} path=${path} limits=${limits} already=${product.images.length} onUploaded=${setProduct} />
  </section>`;
}

/** Products of the account with their first image and prices, a form to add one, and the one opened for editing. */
export function ProductsView({ account, tick, types, limits, openId }: { account: string; tick: number; types: string[]; limits: UploadLimits; openId: string }) {
  const [products, setProducts] = useState<any[] | null>(null);
  const [message, setMessage] = useState<Outcome | null>(null);
  const load = () => call("GET", `/v1/accounts/${account}/products?per_page=100`).then((a) => a.ok && setProducts(a.json.data));
  useEffect(() => void load(), [account, tick]);

  async function create(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const a = await call("POST", `/v1/accounts/${account}/products`, { body: productBody(form) });
    setMessage(a.ok ? { text: `Created ${a.json.data.title}.`, bad: false } : { text: `Not created: ${errorText(a)}`, bad: true });
    if (a.ok) form.reset();
    void load();
  }

  return html`
    ${openId && html`<${ProductEditor} key=${openId} account=${account} id=${openId} types=${types} limits=${limits} onDone=${() => go(toHash("products", "", { account }))} />`}
    <form class="card form" onSubmit=${create} aria-labelledby="new-product">
      <h2 id="new-product">New product</h2>
      <${ProductFields} types=${types} prefix="new" />
      <button type="submit">Create product</button>
      ${say(message)}
    </form>
    ${products === null
      ? html`<p>Loading...</p>`
      : products.length === 0
        ? html`<p class="hint">No products on ${account} yet: create one above, or start lp serve with --seed.</p>`
        : html`<ul class="grid" aria-label="Products">
            ${products.map(
              (p) => html`<li class="card product">
                <img src=${p.preview_image_url} alt=${`Image of ${p.title}`} width="160" height="120" loading="lazy" />
                <h2 class="h3">${p.title}</h2>
                <p>${p.price}${p.original_price != null ? html` <s>${p.original_price}</s>` : ""}${p.delivery_price != null ? ` + ${p.delivery_price} delivery` : ""} · ${p.product_type}</p>
                <p class="mono small">${p.id}</p>
                <a href=${toHash("products", p.id, { account })}>Edit ${p.title}</a>
              </li>`,
            )}
          </ul>`}`;
}
