import { Interrupted, type CallInit, type CrashApi, type Reply } from "./crash-api.js";
import { countWrite, type Ledger, type PageEntry, type ProductEntry } from "./crash-ledger.js";
import type { Rng } from "./seeded-rng.js";

/** A running load. */
export interface Load {
  /** Resolves once `count` operations have finished (acknowledged, refused or interrupted). */
  reached(count: number): Promise<void>;
  /** Stops drawing new operations at once, and resolves once every worker has returned. */
  stop(): Promise<{ operations: number }>;
}

/** How often each operation is drawn. */
const WEIGHTS = {
  createProduct: 30,
  patchProduct: 20,
  deleteProduct: 3,
  createPage: 10,
  pollJob: 10,
  deploy: 10,
  listProducts: 8,
  getProduct: 6,
};

/** Pages (live or being generated) above which a page creation deletes a page instead: the quota is 100. */
const PAGE_CEILING = 60;
/** A product holds at most 20 images; stay below so image PATCHes are never refused. */
const IMAGE_CEILING = 18;

let sequence = 0;

/**
 * Starts `workers` loops that each send one request after another, drawn by `rng`: product creates,
 * PATCHes (a new title and one more image), deletes, page creations (inline product or product_id, some
 * `Lp-Simulate: slow` so jobs are in flight when the server dies), job polls, deployments (some slow),
 * lists and reads. Every 2xx goes into the ledger; a request without an answer counts as interrupted.
 */
export function startLoad(api: CrashApi, ledger: Ledger, rng: Rng, workers = 4): Load {
  let stopped = false;
  let operations = 0;
  const waiters: { count: number; resolve: () => void }[] = [];

  /** Sends one request; the reply on 2xx, null on an interruption or an expected refusal. */
  async function send(method: string, path: string, init: CallInit = {}, refusal?: (r: Reply) => boolean): Promise<Reply | null> {
    let reply: Reply;
    try {
      reply = await api.call(method, path, init);
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      ledger.tally.interrupted++;
      return null;
    }
    if (reply.status >= 200 && reply.status < 300) {
      ledger.tally.acknowledged++;
      return reply;
    }
    if (refusal?.(reply)) ledger.tally.refused++;
    else ledger.unexpected.push(`${method} ${path} -> ${reply.status} ${reply.text.slice(0, 300)}`);
    return null;
  }

  const free = <T extends { busy: boolean; deleted: string }>(items: Iterable<T>) => [...items].filter((i) => !i.busy && i.deleted === "no");
  const slow = (p: number): Record<string, string> => (rng.chance(p) ? { "lp-simulate": "slow" } : {});

  const ops: Record<keyof typeof WEIGHTS, () => Promise<void>> = {
    async createProduct() {
      const n = ++sequence;
      const title = `Crash product ${n}`;
      const price = rng.int(100, 99_999) / 100;
      const images = rng.chance(0.3) ? [`https://img.example/crash/${n}.png`] : [];
      const headers: Record<string, string> = rng.chance(0.3) ? { "idempotency-key": `crash-${rng.seed}-${n}` } : {};
      const r = await send("POST", "products", { body: { title, price, product_type: rng.pick(["physical", "service"]), images }, headers });
      if (!r) return;
      countWrite(ledger, "products.create");
      const entry: ProductEntry = { id: r.json.data.id, price, title, unconfirmedTitles: [], images: new Set(images), imagesSent: images.length, deleted: "no", busy: false };
      ledger.products.set(entry.id, entry);
    },

    async patchProduct() {
      const candidates = free(ledger.products.values());
      if (candidates.length === 0) return ops.createProduct();
      const entry = rng.pick(candidates);
      const n = ++sequence;
      const title = `Crash product ${n} (edited)`;
      const image = entry.imagesSent < IMAGE_CEILING ? `https://img.example/crash/${n}.png` : null;
      entry.busy = true;
      entry.unconfirmedTitles.push(title);
      if (image) entry.imagesSent++;
      try {
        const r = await send("PATCH", `products/${entry.id}`, { body: { title, ...(image ? { images: [image] } : {}) } });
        if (!r) return;
        countWrite(ledger, "products.patch");
        entry.title = title;
        entry.unconfirmedTitles = [];
        if (image) entry.images.add(image);
      } finally {
        entry.busy = false;
      }
    },

    async deleteProduct() {
      const candidates = free(ledger.products.values());
      if (candidates.length === 0) return;
      const entry = rng.pick(candidates);
      entry.busy = true;
      entry.deleted = "maybe";
      try {
        if (!(await send("DELETE", `products/${entry.id}`))) return;
        countWrite(ledger, "products.delete");
        entry.deleted = "yes";
      } finally {
        entry.busy = false;
      }
    },

    async createPage() {
      const live = [...ledger.pages.values()].filter((p) => p.deleted !== "yes").length + ledger.jobsToPoll.size;
      if (live >= PAGE_CEILING) return deletePage();
      const products = free(ledger.products.values());
      const n = ++sequence;
      const product = products.length > 0 && rng.chance(0.5) ? rng.pick(products) : null;
      const body = product
        ? { product_id: product.id }
        : { product: { title: `Crash page ${n}`, description: `Made by the crash loop (${n}).`, price: rng.int(100, 9_999) / 100, product_type: "physical" } };
      const r = await send("POST", "pages", { body, headers: slow(0.3) }, (reply) =>
        reply.json?.error?.code === "quota_exceeded" || (reply.status === 404 && product !== null && product.deleted !== "no"),
      );
      if (!r) return;
      countWrite(ledger, "pages.create");
      ledger.jobs.add(r.json.data.job_id);
      ledger.jobsToPoll.add(r.json.data.job_id);
    },

    async pollJob() {
      if (ledger.jobsToPoll.size === 0) return;
      const jobId = rng.pick([...ledger.jobsToPoll]);
      const r = await send("GET", `pages/jobs/${jobId}`);
      if (!r || r.json.data.status === "processing") return;
      ledger.jobsToPoll.delete(jobId);
      const pageId = r.json.data.page_id;
      if (r.json.data.status === "completed" && !ledger.pages.has(pageId)) ledger.pages.set(pageId, { id: pageId, deleted: "no", busy: false });
    },

    async deploy() {
      const pages = free(ledger.pages.values());
      if (pages.length === 0) return ops.pollJob();
      const page = rng.pick(pages);
      const r = await send("POST", `pages/${page.id}/deployments`, { headers: slow(0.4) }, (reply) =>
        reply.json?.error?.code === "deployment_in_progress" || (reply.status === 404 && page.deleted !== "no"),
      );
      if (!r) return;
      countWrite(ledger, "deployments.start");
      ledger.deployments.push({ id: r.json.data.deployment_id, pageId: page.id });
    },

    async listProducts() {
      await send("GET", `products?per_page=20&sort=${rng.pick(["-created_at", "title", "-updated_at", "price"])}`);
    },

    async getProduct() {
      const all = [...ledger.products.values()];
      if (all.length === 0) return;
      const entry = rng.pick(all);
      await send("GET", `products/${entry.id}`, {}, (reply) => reply.status === 404 && entry.deleted !== "no");
    },
  };

  async function deletePage() {
    const pages = free(ledger.pages.values());
    if (pages.length === 0) return;
    const page: PageEntry = rng.pick(pages);
    page.busy = true;
    page.deleted = "maybe";
    try {
      if (!(await send("DELETE", `pages/${page.id}`))) return;
      countWrite(ledger, "pages.delete");
      page.deleted = "yes";
    } finally {
      page.busy = false;
    }
  }

  const loops = Array.from({ length: workers }, async () => {
    while (!stopped) {
      await ops[rng.weighted(WEIGHTS)]();
      operations++;
      for (let i = waiters.length - 1; i >= 0; i--) if (operations >= waiters[i].count) waiters.splice(i, 1)[0].resolve();
    }
  });
  return {
    reached(count) {
      return operations >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return { operations };
    },
  };
}
