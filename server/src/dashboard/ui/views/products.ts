import { useEffect, useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html } from "../html.js";

/** Products of the account with their images, and a form to add one. */
export function ProductsView({ account, tick }: { account: string; tick: number }) {
  const [products, setProducts] = useState<any[] | null>(null);
  const [message, setMessage] = useState("");
  const load = () => call("GET", `/v1/accounts/${account}/products?per_page=100`).then((a) => setProducts(a.ok ? a.json.data : []));
  useEffect(() => void load(), [account, tick]);

  async function create(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const f = new FormData(form);
    const body = { title: f.get("title"), description: f.get("description") || undefined, price: Number(f.get("price")), product_type: f.get("product_type") };
    const a = await call("POST", `/v1/accounts/${account}/products`, { body });
    setMessage(a.ok ? `Created ${a.json.data.title}.` : errorText(a));
    if (a.ok) form.reset();
    void load();
  }

  return html`
    <form class="card form" onSubmit=${create} aria-labelledby="new-product">
      <h2 id="new-product">New product</h2>
      <label>Title <input name="title" required maxlength="200" /></label>
      <label>Price <input name="price" type="number" min="0" step="0.01" required /></label>
      <label>Type <select name="product_type"><option>physical</option><option>digital</option><option>service</option></select></label>
      <label>Description <input name="description" maxlength="2000" /></label>
      <button type="submit">Create product</button>
      <p role="status">${message}</p>
    </form>
    ${products === null
      ? html`<p>Loading...</p>`
      : html`<ul class="grid" aria-label="Products">
          ${products.map(
            (p) => html`<li class="card product">
              <img src=${p.images?.[0]?.url ?? p.preview_image_url} alt=${`Image of ${p.title}`} width="160" height="120" loading="lazy" />
              <h2 class="h3">${p.title}</h2>
              <p>${p.price} · ${p.product_type} · ${p.images?.length ?? 0} images</p>
              <p class="mono small">${p.id}</p>
            </li>`,
          )}
        </ul>`}`;
}
