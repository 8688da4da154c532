import { need, type Check, type Exchange } from "../checks.js";
import { dataOf, itemsOf } from "../http.js";
import type { Scenario } from "../scenario-context.js";
import { show } from "../schema-issues.js";

/** Most list pages followed: the run's own products fit in a few; an endless cursor is a finding, not a hang. */
const MAX_PAGES = 10;

/** Products: create (JSON, multipart, a service), get, list to the end of the cursor, filter, update, soft delete. */
export async function productsArea(s: Scenario): Promise<void> {
  const { check, http, ledger, state } = s;
  const base = s.accountPath("/products");
  const path = (id: string) => s.accountPath(`/products/${encodeURIComponent(id)}`);

  const json = {
    title: s.title("Linen apron"),
    description: "A record made by lp conformance; it is deleted at the end of the run.",
    price: 42,
    original_price: 50,
    delivery_price: 5,
    product_type: "physical",
    images: ["https://example.com/lp-conformance/apron.jpg"],
  };
  state.productJson = await check("products", "products.create", "201 with the product", async (c) => {
    const ex = await http.send(c, "POST", base, { body: json });
    const id = ledger.fromAnswer(ex, "product", "product (JSON)");
    checkProduct(s, c, ex, 201, json);
    const product = dataOf(ex);
    c.rule(product.images?.length === 1 && product.images[0]?.url === json.images[0], "data.images: expected the one image URL sent");
    if ("preview_image_url" in product) c.rule(product.preview_image_url === product.images?.[0]?.url, "data.preview_image_url: expected the first image's url");
    return id;
  });
  state.productJsonTitle = json.title;

  state.productMultipart = await check("products", "products.create (multipart)", "201 with the uploaded image, served at its url", async (c) => {
    const form = new FormData();
    const fields = { title: s.title("Oak desk lamp"), description: "Uploaded by lp conformance.", price: "19.5", product_type: "physical" };
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    const image = await s.imageFile();
    form.append("images", image, image.name);
    const ex = await http.send(c, "POST", base, { body: form });
    const id = ledger.fromAnswer(ex, "product", "product (multipart)");
    checkProduct(s, c, ex, 201, { title: fields.title, price: 19.5, product_type: "physical" });
    const uploaded = dataOf(ex).images?.[0];
    if (!c.rule(typeof uploaded?.url === "string", "data.images[0]: expected the uploaded image")) return id;
    c.rule(uploaded.media_type === image.type, `data.images[0].media_type: expected ${show(image.type)}, got ${show(uploaded.media_type)}`);
    const served = await http.getUrl(c, uploaded.url);
    c.status(served, 200, "GET data.images[0].url");
    c.rule((served.headers.get("content-type") ?? "").startsWith(image.type), `GET data.images[0].url: content-type ${served.headers.get("content-type")}, expected ${image.type}`);
    return id;
  });

  const service = { title: s.title("Bike fitting"), price: 80, product_type: "service" };
  state.productService = await check("products", "products.create (service, no image)", "201 with a placeholder preview_image_url", async (c) => {
    const ex = await http.send(c, "POST", base, { body: service });
    const id = ledger.fromAnswer(ex, "product", "product (service)");
    checkProduct(s, c, ex, 201, service);
    c.rule(Array.isArray(dataOf(ex).images) && dataOf(ex).images.length === 0, "data.images: expected []");
    return id;
  });

  await check("products", "products.get", "200 with the product", async (c) => {
    const id = need(state.productJson, "products.create");
    const ex = await http.send(c, "GET", path(id));
    checkProduct(s, c, ex, 200, { id, title: json.title });
  });

  await check("products", "products.list (cursor)", "200 pages of productListResponse, followed to has_more false", async (c) => {
    const own = [state.productJson, state.productMultipart, state.productService].filter((id): id is string => id !== undefined);
    need(own.length ? own : undefined, "products.create");
    const seen = await listAll(s, c, base, { q: s.opts.runId, per_page: 1 });
    for (const id of own) c.rule(seen.filter((x) => x === id).length === 1, `the product ${id} was listed ${seen.filter((x) => x === id).length} times across the pages, expected once`);
  });

  await check("products", "products.list (filter)", "200 with only service products", async (c) => {
    const ex = await http.send(c, "GET", base, { query: { q: s.opts.runId, product_type: "service", per_page: 100 } });
    checkList(s, c, ex);
    const items = itemsOf(ex);
    items.forEach((item, i) => c.rule(item.product_type === "service", `data[${i}].product_type: expected "service" (product_type=service), got ${show(item.product_type)}`));
    const ids = items.map((item) => item.id);
    if (state.productService) c.rule(ids.includes(state.productService), `the service product ${state.productService} is missing`);
    if (state.productJson) c.rule(!ids.includes(state.productJson), `the physical product ${state.productJson} was listed`);
  });

  await check("products", "products.update", "200 with the changed fields", async (c) => {
    const id = need(state.productJson, "products.create");
    const patch = { title: s.title("Linen apron, washed"), price: 45, description: null };
    const ex = await http.send(c, "PATCH", path(id), { body: patch });
    checkProduct(s, c, ex, 200, { id, ...patch });
    state.productJsonTitle = patch.title;
  });

  const deleted = await check("products", "products.delete", "204", async (c) => {
    const id = need(state.productService, "products.create (service, no image)");
    const ex = await http.send(c, "DELETE", path(id));
    c.status(ex, 204);
    if (ex.status >= 200 && ex.status < 300) ledger.markDeleted("product", id);
    return ex.status >= 200 && ex.status < 300 ? id : undefined;
  });

  await check("products", "products.get (deleted)", "404 not_found in the error envelope", async (c) => {
    const ex = await http.send(c, "GET", path(need(deleted, "products.delete")));
    c.envelope(ex, "not_found");
  });

  await check("products", "products.list (deleted)", "200 without the deleted product", async (c) => {
    const id = need(deleted, "products.delete");
    const ex = await http.send(c, "GET", base, { query: { q: s.opts.runId, per_page: 100 } });
    checkList(s, c, ex);
    c.rule(!itemsOf(ex).some((item) => item.id === id), `the deleted product ${id} is still listed`);
  });
}

/** A product answer: status, `productResponse`, and the fields sent coming back as sent. */
export function checkProduct(s: Scenario, c: Check, ex: Exchange, status: number, sent: Record<string, unknown>): void {
  c.status(ex, status);
  if (ex.status !== status) return;
  c.schema(ex.body, s.contract.productResponse);
  c.same(dataOf(ex), sent, ["id", "title", "description", "price", "original_price", "delivery_price", "product_type"]);
}

/** A product list answer: status 200, `productListResponse` for the run's own items, no `images` on them. */
function checkList(s: Scenario, c: Check, ex: Exchange): void {
  if (!c.status(ex, 200)) return;
  const items = itemsOf(ex);
  const own = (path: ReadonlyArray<PropertyKey>) => path[0] !== "data" || typeof path[1] !== "number" || s.ledger.has("product", items[path[1]]?.id);
  c.schema(ex.body, s.contract.productListResponse, { keep: own });
  items.forEach((item, i) => {
    if (s.ledger.has("product", item.id)) c.rule(!("images" in item), `data[${i}].images: present, expected absent in list items`);
  });
}

/** Follows `next_cursor` to the end; checks every page, the `Link` header and the last page's pagination. */
async function listAll(s: Scenario, c: Check, base: string, query: Record<string, string | number>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const ex = await s.http.send(c, "GET", base, { query: cursor ? { ...query, cursor } : query });
    checkList(s, c, ex);
    if (ex.status !== 200) return seen;
    seen.push(...itemsOf(ex).map((item) => item.id));
    const pagination = (ex.body as { pagination?: { next_cursor?: unknown; has_more?: unknown } }).pagination ?? {};
    if (pagination.has_more !== true) {
      c.rule(pagination.next_cursor === null, `page ${page}: pagination.next_cursor: expected null on the last page, got ${show(pagination.next_cursor)}`);
      return seen;
    }
    c.rule(/rel="?next"?/.test(ex.headers.get("link") ?? ""), `page ${page}: no Link rel="next" header while has_more`);
    if (!c.rule(typeof pagination.next_cursor === "string" && pagination.next_cursor !== "", `page ${page}: pagination.next_cursor: expected a cursor while has_more`)) return seen;
    cursor = pagination.next_cursor as string;
  }
  c.problem(`has_more still true after ${MAX_PAGES} pages of per_page ${query.per_page} (only the run's own products match)`);
  return seen;
}
