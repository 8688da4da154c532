import { useEffect, useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html } from "../html.js";

/** Pages of the account (status, product, slug, live link), and generating a new one from a product. */
export function PagesView({ account, tick }: { account: string; tick: number }) {
  const [pages, setPages] = useState<any[] | null>(null);
  const [products, setProducts] = useState<any[]>([]);
  const [message, setMessage] = useState("");
  useEffect(() => {
    void call("GET", `/v1/accounts/${account}/pages?per_page=100`).then((a) => setPages(a.ok ? a.json.data : []));
    void call("GET", `/v1/accounts/${account}/products?per_page=100`).then((a) => setProducts(a.ok ? a.json.data : []));
  }, [account, tick]);

  async function generate(e: Event) {
    e.preventDefault();
    const id = new FormData(e.target as HTMLFormElement).get("product_id");
    const a = await call("POST", `/v1/accounts/${account}/pages`, { body: { product_id: id }, simulate: true });
    setMessage(a.ok ? `Generation started (job ${a.json.data.job_id}).` : errorText(a));
  }

  return html`
    <form class="card form" onSubmit=${generate} aria-labelledby="new-page">
      <h2 id="new-page">Generate a page</h2>
      <label>Product <select name="product_id" required>
        ${products.map((p) => html`<option value=${p.id}>${p.title}</option>`)}
      </select></label>
      <button type="submit" disabled=${products.length === 0}>Generate</button>
      <p role="status">${message}</p>
    </form>
    ${pages === null
      ? html`<p>Loading...</p>`
      : html`<table>
          <caption class="sr-only">Pages</caption>
          <thead><tr><th scope="col">Slug</th><th scope="col">Status</th><th scope="col">Product</th><th scope="col">Live</th></tr></thead>
          <tbody>${pages.map(
            (p) => html`<tr>
              <td><a href=${`#/page/${p.id}`}>${p.slug}</a></td>
              <td><span class=${`badge ${p.status}`}>${p.status}</span></td>
              <td>${p.product?.title ?? "-"}</td>
              <td>${p.deployed_url ? html`<a href=${p.deployed_url} target="_blank" rel="noopener">${p.deployed_url}</a>` : "not deployed"}</td>
            </tr>`,
          )}</tbody>
        </table>`}`;
}
