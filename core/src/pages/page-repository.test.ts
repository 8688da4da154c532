import { beforeEach, expect, it } from "vitest";
import type { Database, Tx } from "../db/database.js";
import { claimDue, finishClaim } from "../db/queue.js";
import { createUnreadableRows } from "../db/unreadable-rows.js";
import type { KeysetPosition } from "../lists/cursor.js";
import { describeDatabases } from "../testing/databases.js";
import { at, seedAccount, seedProduct, toJob, toPage, untilATransactionWaits, uuidOf } from "./page-records.fixture.js";
import { createPageRepository, pageJobQueue, type PageListOptions, type PageRepository } from "./page-repository.js";
import type { PageRecord } from "./page-view.js";

const A = "acct_a";
const B = "acct_b";
const PRODUCT = uuidOf(1, 1);
const OTHER_PRODUCT = uuidOf(1, 2);
const job = (n: number) => uuidOf(2, n);
const page = (n: number) => uuidOf(3, n);

describeDatabases("the page repository", ({ open }) => {
  let database: Database;
  let repo: PageRepository;
  beforeEach(async () => {
    database = await open();
    repo = createPageRepository(database.dialect);
    for (const account of [A, B]) await seedAccount(database.db, account);
    await seedProduct(database.db, A, PRODUCT);
    await seedProduct(database.db, A, OTHER_PRODUCT, "Walnut Shelf");
    await seedProduct(database.db, B, uuidOf(1, 3));
  });

  /** A job and the page it made, written as a generation's completion writes them. */
  async function seedPage(n: number, overrides: Partial<PageRecord> = {}, account = A, productId = PRODUCT): Promise<PageRecord> {
    await repo.insertJob(database.db, toJob(account, job(n), productId));
    const p = toPage(account, page(n), job(n), productId, { slug: `page-${n}`, ...overrides });
    expect(await repo.insertPage(database.db, p)).toEqual({ inserted: true });
    return p;
  }

  it("reads a page or a job whose JSON is of another shape as UnreadableRowError naming it, named once; lists leave it out", async () => {
    const lines: string[] = [];
    repo = createPageRepository(database.dialect, createUnreadableRows({ where: "the test database", log: (line) => lines.push(line) }));
    await seedPage(1);
    await seedPage(2);
    // JSON either engine keeps (PostgreSQL checks only that a JSON column holds JSON).
    await database.db.updateTable("pages").set({ product: '{"id":"x","title":["Oak"],"price":1}' }).where("id", "=", page(2)).execute();
    await database.db.updateTable("page_jobs").set({ step_times: '["analyzing_product"]' }).where("job_id", "=", job(1)).execute();
    for (let i = 0; i < 2; i++) {
      await expect(repo.readPage(database.db, page(2))).rejects.toMatchObject({ code: "record_unreadable", table: "pages", id: page(2), problem: "product.title is a list, not text" });
      expect((await repo.listPages(database.db, A, { sort: "-created_at", limit: 10 })).items.map((p) => p.id)).toEqual([page(1)]);
      await expect(repo.readJob(database.db, job(1))).rejects.toMatchObject({ code: "record_unreadable", table: "page_jobs", id: job(1), problem: "step_times is not the steps' times" });
      expect((await repo.listJobs(database.db, A, { limit: 10 })).map((j) => j.job_id)).toEqual([job(2)]);
    }
    expect(lines.map((line) => line.split(":")[1])).toEqual([` unreadable row pages/${page(2)} in the test database`, ` unreadable row page_jobs/${job(1)} in the test database`]);
  });

  it("writes a page and reads it back whole: by id, within its account, and by the job that made it", async () => {
    const p = await seedPage(1);
    expect(await repo.readPage(database.db, p.id)).toEqual(p);
    expect(await repo.readPage(database.db, p.id, { accountId: A, forUpdate: true })).toEqual(p);
    expect(await repo.readPage(database.db, p.id, { accountId: B })).toBeNull();
    expect(await repo.readPage(database.db, page(9))).toBeNull();
    expect(await repo.readPageByJob(database.db, job(1))).toEqual(p);
    expect(await repo.readPageByJob(database.db, job(9))).toBeNull();
  });

  it("refuses a slug the account has, as a result that leaves the transaction usable; another account may have it", async () => {
    await seedPage(1, { slug: "oak-desk-lamp" });
    await repo.insertJob(database.db, toJob(A, job(2), PRODUCT));
    await repo.insertJob(database.db, toJob(B, job(3), uuidOf(1, 3)));
    const again = toPage(A, page(2), job(2), PRODUCT, { slug: "oak-desk-lamp" });
    // Refused inside a transaction that goes on and commits: on PostgreSQL an error would have ended it.
    await database.transaction(async (tx) => {
      expect(await repo.insertPage(tx, again)).toEqual({ inserted: false, conflict: "slug" });
      expect(await repo.insertPage(tx, { ...again, slug: "oak-desk-lamp-2" })).toEqual({ inserted: true });
    });
    expect((await repo.readPage(database.db, page(2)))?.slug).toBe("oak-desk-lamp-2");
    expect(await repo.insertPage(database.db, toPage(B, page(3), job(3), uuidOf(1, 3), { slug: "oak-desk-lamp" }))).toEqual({ inserted: true });
  });

  it("gives a page the first free slug by today's rules: the title, then -{lang}, then numbered", async () => {
    const write = async (n: number, language: string, title = "Oak Desk Lamp") => {
      await repo.insertJob(database.db, toJob(A, job(n), PRODUCT));
      const { slug: _slug, ...draft } = toPage(A, page(n), job(n), PRODUCT, { language });
      return (await repo.insertPageWithFreeSlug(database.db, draft, title)).slug;
    };
    expect(await write(1, "en")).toBe("oak-desk-lamp");
    expect(await write(2, "fr")).toBe("oak-desk-lamp-fr");
    expect(await write(3, "en")).toBe("oak-desk-lamp-en");
    expect(await write(4, "en")).toBe("oak-desk-lamp-en-2");
    expect(await write(5, "de", "Schöne Tasse & Teller")).toBe("schoene-tasse-und-teller");
    // A title of 60 characters and more: the language's stem cuts the base short, and is still found taken.
    const long = "An extraordinarily long product title that keeps going on and on";
    const base = "an-extraordinarily-long-product-title-that-keeps-going-on-an";
    expect(await write(6, "fr", long)).toBe(base);
    expect(await write(7, "fr", long)).toBe(`${base.slice(0, 57)}-fr`);
    expect(await write(8, "fr", long)).toBe(`${base.slice(0, 57)}-fr-2`);
    expect((await repo.readPage(database.db, page(8)))?.slug).toBe(`${base.slice(0, 57)}-fr-2`);
  });

  it("gives two pages written at once different slugs", async () => {
    for (const n of [1, 2]) await repo.insertJob(database.db, toJob(A, job(n), PRODUCT));
    const write = async (tx: Tx, n: number) => {
      const { slug: _slug, ...draft } = toPage(A, page(n), job(n), PRODUCT);
      return (await repo.insertPageWithFreeSlug(tx, draft, "Oak Desk Lamp")).slug;
    };
    // Each in its own transaction (its own connection on PostgreSQL). The second reads the slugs while the
    // first's page is written but not committed, so it tries the same slug and waits on that row; the first
    // commits once it waits, and the second, refused, reads again.
    let firstWrote!: () => void;
    const wrote = new Promise<void>((resolve) => (firstWrote = resolve));
    const slugs = await Promise.all([
      database.transaction(async (tx) => {
        const slug = await write(tx, 1);
        firstWrote();
        await untilATransactionWaits(database);
        return slug;
      }),
      wrote.then(() => database.transaction((tx) => write(tx, 2))),
    ]);
    expect(slugs).toEqual(["oak-desk-lamp", "oak-desk-lamp-en"]);
    const stored = await database.db.selectFrom("pages").select("slug").orderBy("slug").execute();
    expect(stored.map((r) => r.slug)).toEqual(["oak-desk-lamp", "oak-desk-lamp-en"]);
  });

  it("updates a page's theme, SEO, content and deployment state, and only the page asked for", async () => {
    const p = await seedPage(1);
    const theme = { ...p.global_theme, primaryColor: "#ff0000" };
    const content = { ...p.content, headline: "A new headline" };
    const updated = await repo.updatePage(database.db, A, p.id, { global_theme: theme, seo_config: { title: "New", description: "Lamp" }, content, updated_at: at(5) });
    expect(updated).toEqual({ ...p, global_theme: theme, seo_config: { title: "New", description: "Lamp" }, content, updated_at: at(5) });
    const deployed = await repo.updatePage(database.db, A, p.id, { status: "published", deployed_url: "http://127.0.0.1:4010/sites/acct_a/page-1/", updated_at: at(6) });
    expect(deployed).toEqual({ ...updated, status: "published", deployed_url: "http://127.0.0.1:4010/sites/acct_a/page-1/", updated_at: at(6) });
    expect(await repo.readPage(database.db, p.id)).toEqual(deployed);
    expect(await repo.updatePage(database.db, B, p.id, { status: "draft", updated_at: at(7) })).toBeNull();
    expect(await repo.updatePage(database.db, A, page(9), { status: "draft", updated_at: at(7) })).toBeNull();
    expect((await repo.readPage(database.db, p.id))?.status).toBe("published");
  });

  it("deletes a page, answering it as it was, and frees its slug", async () => {
    const p = await seedPage(1, { slug: "oak-desk-lamp" });
    expect(await repo.deletePage(database.db, B, p.id)).toBeNull();
    expect(await repo.deletePage(database.db, A, p.id)).toEqual(p);
    expect(await repo.deletePage(database.db, A, p.id)).toBeNull();
    expect(await repo.readPage(database.db, p.id)).toBeNull();
    // The job that made it keeps naming it.
    expect((await repo.readJob(database.db, job(1)))?.job_id).toBe(job(1));
    await repo.insertJob(database.db, toJob(A, job(2), PRODUCT));
    const { slug: _slug, ...draft } = toPage(A, page(2), job(2), PRODUCT);
    expect((await repo.insertPageWithFreeSlug(database.db, draft, "Oak Desk Lamp")).slug).toBe("oak-desk-lamp");
  });

  it("lists pages in every sort, page after page, ties broken by id in the sort's direction", async () => {
    // Created at three times (ties within each), updated in another order, slugs in a third.
    const specs = [
      { n: 1, created: at(3), updated: at(9), slug: "delta" },
      { n: 2, created: at(1), updated: at(4), slug: "alpha" },
      { n: 3, created: at(3), updated: at(2), slug: "echo" },
      { n: 4, created: at(1), updated: at(7), slug: "charlie" },
      { n: 5, created: at(2), updated: at(7), slug: "bravo" },
      { n: 6, created: at(3), updated: at(5), slug: "foxtrot" },
      { n: 7, created: at(1), updated: at(1), slug: "golf" },
    ];
    const pages = [];
    for (const s of specs) pages.push(await seedPage(s.n, { slug: s.slug, created_at: s.created, updated_at: s.updated }));
    await seedPage(8, { slug: "other-account" }, B, uuidOf(1, 3));
    for (const sort of ["created_at", "-created_at", "updated_at", "-updated_at", "slug", "-slug"] as const) {
      const field = sort.replace("-", "") as "created_at" | "updated_at" | "slug";
      const sign = sort.startsWith("-") ? -1 : 1;
      const expected = [...pages].sort((x, y) => sign * (x[field] < y[field] ? -1 : x[field] > y[field] ? 1 : x.id < y.id ? -1 : 1)).map((x) => x.id);
      const walked = await walk({ sort, limit: 3 });
      expect(walked.pages, sort).toEqual([3, 3, 1]);
      expect(walked.ids, sort).toEqual(expected);
    }
  });

  it("filters by status, product, text and creation bounds, page after page", async () => {
    await seedPage(1, { created_at: at(1), status: "published" });
    await seedPage(2, { created_at: at(2), slug: "walnut-shelf", product: { ...toPage(A, page(2), job(2), OTHER_PRODUCT).product, title: "Walnut Shelf" } }, A, OTHER_PRODUCT);
    await seedPage(3, { created_at: at(3), slug: "lamp-deluxe", status: "published" });
    await seedPage(4, { created_at: at(4), slug: "plain" });
    const ids = async (options: Partial<PageListOptions>) => (await walk({ sort: "created_at", limit: 1, ...options })).ids;
    expect(await ids({ status: "published" })).toEqual([page(1), page(3)]);
    expect(await ids({ status: "draft" })).toEqual([page(2), page(4)]);
    expect(await ids({ product_id: OTHER_PRODUCT })).toEqual([page(2)]);
    // `q` looks in the slug and the product title, case-insensitively.
    expect(await ids({ q: "WALNUT" })).toEqual([page(2)]);
    expect(await ids({ q: "Desk" })).toEqual([page(1), page(3), page(4)]);
    expect(await ids({ q: "deluxe" })).toEqual([page(3)]);
    expect(await ids({ q: "50%_" })).toEqual([]);
    // Exclusive bounds, given as date-times with a zone or dates.
    expect(await ids({ created_after: at(2), created_before: "2026-03-01T11:04:00+01:00" })).toEqual([page(3)]);
    expect(await ids({ created_after: "2026-03-01", status: "draft", q: "plain" })).toEqual([page(4)]);
    expect(await ids({ created_before: "2026-03-01" })).toEqual([]);
  });

  it("counts the pages and the jobs still processing against the quota", async () => {
    expect(await repo.countQuotaUse(database.db, A)).toBe(0);
    await seedPage(1);
    await repo.updateJob(database.db, job(1), { status: "completed", step: "done", page_id: page(1), completed_at: at(2), updated_at: at(2) });
    await repo.insertJob(database.db, toJob(A, job(2), PRODUCT));
    await repo.insertJob(database.db, toJob(A, job(3), PRODUCT));
    await repo.updateJob(database.db, job(3), { status: "failed", error: { code: "generation_failed", message: "Simulated." }, updated_at: at(3) });
    await repo.insertJob(database.db, toJob(B, job(4), uuidOf(1, 3)));
    // The page, and job 2: job 1 completed (its page counts), job 3 failed, job 4 is another account's.
    expect(await repo.countQuotaUse(database.db, A)).toBe(2);
    expect(await repo.countQuotaUse(database.db, B)).toBe(1);
  });

  it("writes a job, reads it within its account, records its steps and outcome, and lists an account's newest first", async () => {
    const created = toJob(A, job(1), PRODUCT, { warnings: [{ code: "copy_shortened", message: "The description was long." }] });
    await repo.insertJob(database.db, created);
    expect(await repo.readJob(database.db, job(1))).toEqual(created);
    expect(await repo.readJob(database.db, job(1), { accountId: A, forUpdate: true })).toEqual(created);
    expect(await repo.readJob(database.db, job(1), { accountId: B })).toBeNull();
    const stepped = await repo.updateJob(database.db, job(1), {
      step: "writing_copy",
      step_detail: "Writing the headline",
      step_times: { analyzing_product: at(1), writing_copy: at(2) },
      updated_at: at(2),
    });
    expect(stepped).toEqual({ ...created, step: "writing_copy", step_detail: "Writing the headline", step_times: { analyzing_product: at(1), writing_copy: at(2) }, updated_at: at(2) });
    const failed = await repo.updateJob(database.db, job(1), { status: "failed", error: { code: "generation_failed", message: "Image generation failed." }, updated_at: at(3) });
    expect(failed).toEqual({ ...stepped, status: "failed", error: { code: "generation_failed", message: "Image generation failed." }, updated_at: at(3) });
    expect(await repo.readJob(database.db, job(1))).toEqual(failed);
    expect(await repo.updateJob(database.db, job(9), { status: "failed", updated_at: at(3) })).toBeNull();

    await repo.insertJob(database.db, toJob(A, job(2), PRODUCT, { created_at: at(5), page_id: page(1) }));
    await repo.insertJob(database.db, toJob(A, job(3), PRODUCT, { created_at: at(4) }));
    await repo.insertJob(database.db, toJob(B, job(4), uuidOf(1, 3), { created_at: at(9) }));
    expect((await repo.listJobs(database.db, A, { limit: 10 })).map((j) => j.job_id)).toEqual([job(2), job(3), job(1)]);
    expect((await repo.listJobs(database.db, A, { limit: 2 })).map((j) => j.job_id)).toEqual([job(2), job(3)]);
    expect((await repo.listJobs(database.db, A, { pageId: page(1), limit: 10 })).map((j) => j.job_id)).toEqual([job(2)]);
  });

  it("queues a job at its creation; a lapsed lease is taken by another owner, a live one is not, and the old owner writes nothing", async () => {
    await repo.insertJob(database.db, toJob(A, job(1), PRODUCT, { created_at: at(1) }));
    await repo.insertJob(database.db, toJob(A, job(2), PRODUCT, { created_at: at(30) }));
    const claim = (owner: string, now: string, leaseUntil: string) => claimDue(database.db, database.dialect, pageJobQueue, { now, owner, leaseUntil, limit: 10 });
    expect(await claim("p1", at(2), at(3, 30))).toEqual([job(1)]);
    // Held until 10:03:30: p2 finds nothing at 10:03, and takes it over at 10:04.
    expect(await claim("p2", at(3), at(4, 30))).toEqual([]);
    expect(await repo.updateJob(database.db, job(1), { step: "writing_copy", updated_at: at(3) }, { heldBy: "p1" })).toMatchObject({ step: "writing_copy" });
    expect(await claim("p2", at(4), at(4, 30))).toEqual([job(1)]);
    expect(await repo.updateJob(database.db, job(1), { step: "generating_images", updated_at: at(4) }, { heldBy: "p1" })).toBeNull();
    expect(await repo.updateJob(database.db, job(1), { status: "failed", error: { code: "worker_terminated", message: "Taken over." }, updated_at: at(4) }, { heldBy: "p2" })).toMatchObject({
      status: "failed",
      step: "writing_copy",
    });
    expect(await finishClaim(database.db, pageJobQueue, job(1), "p2", { due_at: null })).toBe(true);
    // Settled: never due again. Job 2 comes due at its own creation time.
    expect(await claim("p3", at(20), at(21))).toEqual([]);
    expect(await claim("p3", at(30), at(31))).toEqual([job(2)]);
  });

  it("queues a job for later when asked, and completes its request only while it is processing and unclaimed", async () => {
    await repo.insertJob(database.db, toJob(A, job(1), "", { created_at: at(1) }), { dueAt: at(2) });
    await repo.insertJob(database.db, toJob(A, job(2), "", { created_at: at(1) }), { dueAt: at(2) });
    const claim = (now: string) => claimDue(database.db, database.dialect, pageJobQueue, { now, owner: "p1", leaseUntil: at(9), limit: 10 });
    expect(await claim(at(1, 30))).toEqual([]);
    const request = { ...toJob(A, job(1), PRODUCT).request };
    expect(await repo.completeRequest(database.db, job(1), request, at(1, 40))).toBe(true);
    expect((await repo.readJob(database.db, job(1)))?.request).toEqual(request);
    // Due at once now; job 2, never completed, comes due at its grace time.
    expect(await claim(at(1, 50))).toEqual([job(1)]);
    expect(await repo.completeRequest(database.db, job(1), { ...request, language: "fr" }, at(1, 50))).toBe(false);
    expect(await claim(at(2))).toEqual([job(2)]);
    await repo.updateJob(database.db, job(2), { status: "failed", updated_at: at(2) });
    expect(await repo.completeRequest(database.db, job(2), request, at(2))).toBe(false);
    expect((await repo.readJob(database.db, job(2)))?.request.product_id).toBe("");
  });

  it("reads an account's page quota under its row lock, and nothing for an unknown account", async () => {
    await database.transaction(async (tx) => {
      expect(await repo.lockPageQuota(tx, A)).toBe(100);
      expect(await repo.lockPageQuota(tx, "acct_none")).toBeNull();
    });
  });

  it("goes with its account: the account's pages and jobs are deleted with it", async () => {
    await seedPage(1);
    await seedPage(2, {}, B, uuidOf(1, 3));
    await database.db.deleteFrom("accounts").where("account_id", "=", A).execute();
    expect(await repo.readPage(database.db, page(1))).toBeNull();
    expect(await repo.readJob(database.db, job(1))).toBeNull();
    expect(await repo.readPage(database.db, page(2))).not.toBeNull();
  });

  /** Every page of a listing from the first: the ids in order and the size of each page. */
  async function walk(options: Partial<PageListOptions> & Pick<PageListOptions, "sort" | "limit">): Promise<{ ids: string[]; pages: number[] }> {
    const ids: string[] = [];
    const pages: number[] = [];
    let after: KeysetPosition | undefined;
    for (let guard = 0; guard < 50; guard++) {
      const { items, next } = await repo.listPages(database.db, A, { ...options, after });
      ids.push(...items.map((i) => i.id));
      pages.push(items.length);
      if (!next) return { ids, pages };
      after = next;
    }
    throw new Error("the listing never ended");
  }
});
