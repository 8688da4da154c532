/** Where the soak sends its requests, and with which credentials. */
export interface SoakTarget {
  url: string;
  account: string;
  token: string;
  /** Basic credentials of the dev application and its endpoint, for the deliveries listing. */
  appAuth: string;
  endpointId: string;
}

/** Called once per request: its latency, whether it counts as a success, and a label for errors. */
export type Recorder = (latencyMs: number, ok: boolean, what: string) => void;

interface PageState {
  deploying: string | null;
  sitePath: string | null;
}

/** Live products kept around; above this, the mix deletes instead of creating. */
const PRODUCT_CEILING = 300;
/** Pages kept around (the dev account's quota is 100). */
const PAGE_CEILING = 40;

const WEIGHTS = {
  createProduct: 14,
  listProducts: 14,
  getProduct: 16,
  patchProduct: 10,
  deleteProduct: 4,
  createPage: 4,
  pollJob: 8,
  deploy: 5,
  pollDeployment: 8,
  getSite: 12,
  listDeliveries: 5,
};
type Op = keyof typeof WEIGHTS;

/**
 * The soak's request mix over one account: product create, list, get, PATCH and delete, page creation
 * and job polls, deployments and their polls, reads of deployed sites, and the webhook deliveries
 * listing. State is kept so every request is one the API must answer with a 2xx: a 404 only passes for
 * something this client deleted while the request was on its way. `next()` sends one request.
 */
export function createSoakLoad(target: SoakTarget, record: Recorder, random: () => number = Math.random) {
  const products: string[] = [];
  const images = new Map<string, number>();
  const deleted = new Set<string>();
  /** Every product whose creation was acknowledged: the `product.created` events owed to the receiver. */
  const created = new Set<string>();
  const jobs = new Set<string>();
  const pages = new Map<string, PageState>();
  let sequence = 0;

  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const draw = (): Op => {
    let roll = random() * Object.values(WEIGHTS).reduce((a, b) => a + b, 0);
    for (const [op, weight] of Object.entries(WEIGHTS) as [Op, number][]) if ((roll -= weight) < 0) return op;
    return "getProduct";
  };

  /** One request; the parsed body when its status is in `expected` (or a tolerated 404), else null. */
  async function send(what: string, method: string, path: string, expected: number[], body?: unknown, gone?: () => boolean, auth?: string): Promise<any> {
    const url = path.startsWith("/") ? `${target.url}${path}` : `${target.url}/v1/accounts/${target.account}/${path}`;
    const headers: Record<string, string> = { authorization: auth ?? `Bearer ${target.token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const started = performance.now();
    try {
      const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      const ok = expected.includes(res.status) || (res.status === 404 && gone?.() === true);
      record(performance.now() - started, ok, ok ? what : `${what} -> ${res.status} ${text.slice(0, 200)}`);
      const json = res.headers.get("content-type")?.includes("json") ?? false;
      return ok && expected.includes(res.status) && json ? JSON.parse(text) : null;
    } catch (error) {
      record(performance.now() - started, false, `${what} -> ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  const ops: Record<Op, () => Promise<unknown>> = {
    async createProduct() {
      if (products.length >= PRODUCT_CEILING) return ops.deleteProduct();
      const n = ++sequence;
      const res = await send("create product", "POST", "products", [201], { title: `Soak product ${n}`, description: "Made by npm run soak.", price: (n % 500) + 0.99, product_type: n % 2 ? "physical" : "service" });
      if (!res) return;
      products.push(res.data.id);
      created.add(res.data.id);
      images.set(res.data.id, 0);
    },
    listProducts: () => send("list products", "GET", `products?per_page=20&sort=${pick(["-created_at", "title", "price", "-updated_at"])}`, [200]),
    async getProduct() {
      if (products.length === 0) return ops.createProduct();
      const id = pick(products);
      await send("get product", "GET", `products/${id}`, [200], undefined, () => deleted.has(id));
    },
    async patchProduct() {
      if (products.length === 0) return ops.createProduct();
      const id = pick(products);
      const count = images.get(id) ?? 0;
      const more = count < 15 ? { images: [`https://img.example/soak/${++sequence}.png`] } : {};
      images.set(id, count + (more.images ? 1 : 0));
      await send("patch product", "PATCH", `products/${id}`, [200], { title: `Soak product ${++sequence} (edited)`, ...more }, () => deleted.has(id));
    },
    async deleteProduct() {
      if (products.length < PRODUCT_CEILING / 2) return ops.getProduct();
      const id = products.splice(Math.floor(random() * products.length), 1)[0];
      deleted.add(id);
      await send("delete product", "DELETE", `products/${id}`, [204]);
    },
    async createPage() {
      if (pages.size + jobs.size >= PAGE_CEILING) return deletePage();
      const n = ++sequence;
      const res = await send("create page", "POST", "pages", [202], {
        product: { title: `Soak page ${n}`, description: "A page made by the soak.", price: 19.99, product_type: "physical" },
        options: { language: pick(["en", "fr", "es", "de"]) },
      });
      if (res) jobs.add(res.data.job_id);
    },
    async pollJob() {
      if (jobs.size === 0) return ops.createPage();
      const jobId = pick([...jobs]);
      const res = await send("poll job", "GET", `pages/jobs/${jobId}`, [200]);
      if (!res || res.data.status === "processing") return;
      jobs.delete(jobId);
      if (res.data.status === "completed") pages.set(res.data.page_id, { deploying: null, sitePath: null });
    },
    async deploy() {
      const idle = [...pages].filter(([, p]) => p.deploying === null);
      if (idle.length === 0) return ops.pollJob();
      const [pageId, page] = pick(idle);
      page.deploying = "starting";
      const res = await send("start deployment", "POST", `pages/${pageId}/deployments`, [202], undefined, () => !pages.has(pageId));
      page.deploying = res ? res.data.deployment_id : null;
    },
    async pollDeployment() {
      const busy = [...pages].filter(([, p]) => p.deploying !== null && p.deploying !== "starting");
      if (busy.length === 0) return ops.deploy();
      const [pageId, page] = pick(busy);
      const res = await send("poll deployment", "GET", `pages/${pageId}/deployments/${page.deploying}`, [200], undefined, () => !pages.has(pageId));
      if (!res || res.data.status === "deploying") return;
      page.deploying = null;
      if (res.data.status === "succeeded") page.sitePath = new URL(res.data.deployed_url).pathname;
    },
    async getSite() {
      const live = [...pages].filter(([, p]) => p.sitePath !== null);
      if (live.length === 0) return ops.pollDeployment();
      const [pageId, page] = pick(live);
      await send("get site", "GET", page.sitePath!, [200], undefined, () => !pages.has(pageId), "");
    },
    listDeliveries: () => send("list deliveries", "GET", `/v1/developer/webhook-endpoints/${target.endpointId}/deliveries?per_page=20`, [200], undefined, undefined, target.appAuth),
  };

  async function deletePage() {
    const idle = [...pages].filter(([, p]) => p.deploying === null);
    if (idle.length === 0) return ops.pollDeployment();
    const [pageId] = pick(idle);
    pages.delete(pageId);
    await send("delete page", "DELETE", `pages/${pageId}`, [204]);
  }

  return {
    next: () => ops[draw()](),
    /** Product ids whose creation was acknowledged. */
    created,
  };
}
