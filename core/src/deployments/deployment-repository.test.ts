import { beforeEach, expect, it } from "vitest";
import type { Database } from "../db/database.js";
import { claimDue, finishClaim } from "../db/queue.js";
import type { KeysetPosition } from "../lists/cursor.js";
import { at, seedAccount, seedProduct, toJob, toPage, untilATransactionWaits, uuidOf } from "../pages/page-records.fixture.js";
import { createPageRepository, type PageRepository } from "../pages/page-repository.js";
import { describeDatabases } from "../testing/databases.js";
import { toRenderable } from "./deployment-view.js";
import { createDeploymentRepository, deploymentQueue, type DeploymentRepository, type SiteActivation, type StoredDeployment } from "./deployment-repository.js";

const A = "acct_a";
const B = "acct_b";
const PRODUCT = uuidOf(1, 1);
const PAGE = uuidOf(3, 1);
const OTHER_PAGE = uuidOf(3, 2);
const dep = (n: number) => uuidOf(4, n);
const URL = "http://127.0.0.1:4010/sites/acct_a/oak-desk-lamp/";

/** A deployment as a start writes it: deploying, at its first step. */
function toDeployment(id: string, pageId = PAGE, overrides: Partial<StoredDeployment> = {}): StoredDeployment {
  return {
    id,
    page_id: pageId,
    account_id: A,
    status: "deploying",
    deploy_step: "rendering",
    error_code: null,
    error_message: null,
    deployed_url: null,
    deployed_at: null,
    created_at: at(1),
    updated_at: at(1),
    simulate: null,
    step_times: {},
    ...overrides,
  };
}

describeDatabases("the deployment repository", ({ open }) => {
  let database: Database;
  let pages: PageRepository;
  let repo: DeploymentRepository;
  beforeEach(async () => {
    database = await open();
    pages = createPageRepository(database.dialect);
    repo = createDeploymentRepository(database.dialect);
    for (const account of [A, B]) await seedAccount(database.db, account);
    await seedProduct(database.db, A, PRODUCT);
    for (const [n, id, slug] of [[1, PAGE, "oak-desk-lamp"], [2, OTHER_PAGE, "walnut-shelf"]] as const) {
      await pages.insertJob(database.db, toJob(A, uuidOf(2, n), PRODUCT));
      await pages.insertPage(database.db, toPage(A, id, uuidOf(2, n), PRODUCT, { slug }));
    }
  });

  /** Settles a deployment as succeeded, so the page may have another. */
  const succeed = (id: string, minute: number) =>
    repo.updateDeployment(database.db, id, { status: "succeeded", deploy_step: null, deployed_url: URL, deployed_at: at(minute), updated_at: at(minute) });

  /** What an activation of `deploymentId` writes, its html naming it. */
  const activation = (deploymentId: string, minute: number): SiteActivation => ({
    account_id: A,
    slug: "oak-desk-lamp",
    page_id: PAGE,
    deployment_id: deploymentId,
    activated_at: at(minute),
    url: URL,
    html: `<!doctype html><title>Oak Desk Lamp</title><!-- ${deploymentId} -->`,
    page: toRenderable(toPage(A, PAGE, uuidOf(2, 1), PRODUCT)),
  });

  it("writes a deployment and reads it back, within its account and page", async () => {
    const d = toDeployment(dep(1), PAGE, { simulate: "slow" });
    expect(await repo.insertDeployment(database.db, d)).toEqual({ inserted: true });
    expect(await repo.readDeployment(database.db, d.id)).toEqual(d);
    expect(await repo.readDeployment(database.db, d.id, { accountId: A, pageId: PAGE, forUpdate: true })).toEqual(d);
    expect(await repo.readDeployment(database.db, d.id, { accountId: B })).toBeNull();
    expect(await repo.readDeployment(database.db, d.id, { pageId: OTHER_PAGE })).toBeNull();
    expect(await repo.activeDeployment(database.db, A, PAGE)).toBe(d.id);
    expect(await repo.activeDeployment(database.db, A, OTHER_PAGE)).toBeNull();
  });

  it("refuses a second deployment while one is in flight, naming it; another page, or the same once settled, may start", async () => {
    expect(await repo.insertDeployment(database.db, toDeployment(dep(1)))).toEqual({ inserted: true });
    // Refused inside a transaction that goes on: on PostgreSQL an error would have ended it.
    await database.transaction(async (tx) => {
      expect(await repo.insertDeployment(tx, toDeployment(dep(2)))).toEqual({ inserted: false, active_deployment_id: dep(1) });
      expect(await repo.insertDeployment(tx, toDeployment(dep(3), OTHER_PAGE))).toEqual({ inserted: true });
    });
    expect(await repo.readDeployment(database.db, dep(2))).toBeNull();
    await succeed(dep(1), 2);
    expect(await repo.insertDeployment(database.db, toDeployment(dep(4), PAGE, { created_at: at(3), updated_at: at(3) }))).toEqual({ inserted: true });
    expect(await repo.activeDeployment(database.db, A, PAGE)).toBe(dep(4));
  });

  it("lets exactly one of two starts made at once go in flight, and tells the other which", async () => {
    // Each in its own transaction (its own connection on PostgreSQL). The first inserts and holds its
    // transaction open until the second's insert waits on its row; then it commits, and the second is refused.
    let firstInserted!: () => void;
    const inserted = new Promise<void>((resolve) => (firstInserted = resolve));
    const results = await Promise.all([
      database.transaction(async (tx) => {
        const result = await repo.insertDeployment(tx, toDeployment(dep(1)));
        firstInserted();
        await untilATransactionWaits(database);
        return result;
      }),
      inserted.then(() => database.transaction((tx) => repo.insertDeployment(tx, toDeployment(dep(2))))),
    ]);
    expect(results).toEqual([{ inserted: true }, { inserted: false, active_deployment_id: dep(1) }]);
    const rows = await database.db.selectFrom("deployments").select(["id", "status"]).execute();
    expect(rows).toEqual([{ id: dep(1), status: "deploying" }]);
  });

  it("records a deployment's steps and outcome; with a lease, only while its owner holds it", async () => {
    const d = toDeployment(dep(1));
    await repo.insertDeployment(database.db, d);
    const claim = (owner: string, now: string, leaseUntil: string) => claimDue(database.db, database.dialect, deploymentQueue, { now, owner, leaseUntil, limit: 5 });
    // Due at its start; held by p1 until 10:02:30.
    expect(await claim("p1", at(1), at(2, 30))).toEqual([d.id]);
    const uploading = await repo.updateDeployment(database.db, d.id, { deploy_step: "uploading", step_times: { rendering: at(1), uploading: at(2) }, updated_at: at(2) }, { heldBy: "p1" });
    expect(uploading).toEqual({ ...d, deploy_step: "uploading", step_times: { rendering: at(1), uploading: at(2) }, updated_at: at(2) });
    // A live lease is not taken; a lapsed one is, and its old owner writes nothing more.
    expect(await claim("p2", at(2), at(3, 30))).toEqual([]);
    expect(await claim("p2", at(3), at(3, 30))).toEqual([d.id]);
    expect(await repo.updateDeployment(database.db, d.id, { deploy_step: "activating", updated_at: at(3) }, { heldBy: "p1" })).toBeNull();
    expect(await finishClaim(database.db, deploymentQueue, d.id, "p1", { due_at: null })).toBe(false);
    const failed = await repo.updateDeployment(
      database.db,
      d.id,
      { status: "failed", error_code: "worker_terminated", error_message: "The process running it stopped at uploading.", updated_at: at(3) },
      { heldBy: "p2" },
    );
    expect(failed).toEqual({ ...uploading, status: "failed", error_code: "worker_terminated", error_message: "The process running it stopped at uploading.", updated_at: at(3) });
    expect(await finishClaim(database.db, deploymentQueue, d.id, "p2", { due_at: null })).toBe(true);
    expect(await claim("p3", at(50), at(51))).toEqual([]);
    expect(await repo.readDeployment(database.db, d.id)).toEqual(failed);
    expect(await repo.updateDeployment(database.db, dep(9), { status: "failed", updated_at: at(4) })).toBeNull();
  });

  it("lists a page's deployments newest first, page after page, filtered by status", async () => {
    // Two share a creation time: the larger id comes first.
    const made = [
      { n: 1, created: at(1), status: "failed" },
      { n: 2, created: at(2), status: "succeeded" },
      { n: 3, created: at(2), status: "failed" },
      { n: 4, created: at(3), status: "succeeded" },
      { n: 5, created: at(4), status: "deploying" },
    ] as const;
    for (const m of made) {
      expect(await repo.insertDeployment(database.db, toDeployment(dep(m.n), PAGE, { created_at: m.created, updated_at: m.created }))).toEqual({ inserted: true });
      if (m.status !== "deploying") await repo.updateDeployment(database.db, dep(m.n), { status: m.status, updated_at: m.created });
    }
    await repo.insertDeployment(database.db, toDeployment(dep(6), OTHER_PAGE));
    const walk = async (status?: StoredDeployment["status"]) => {
      const ids: string[] = [];
      const sizes: number[] = [];
      let after: KeysetPosition | undefined;
      do {
        const { items, next } = await repo.listDeployments(database.db, A, PAGE, { status, after, limit: 2 });
        ids.push(...items.map((d) => d.id));
        sizes.push(items.length);
        after = next ?? undefined;
      } while (after);
      return { ids, sizes };
    };
    expect(await walk()).toEqual({ ids: [dep(5), dep(4), dep(3), dep(2), dep(1)], sizes: [2, 2, 1] });
    expect(await walk("failed")).toEqual({ ids: [dep(3), dep(1)], sizes: [2] });
    expect(await walk("succeeded")).toEqual({ ids: [dep(4), dep(2)], sizes: [2] });
    expect((await repo.listDeployments(database.db, B, PAGE, { limit: 10 })).items).toEqual([]);
  });

  it("activates a site: the address serves the new deployment's files, the old files stay as written", async () => {
    await repo.insertDeployment(database.db, toDeployment(dep(1)));
    expect(await repo.readSite(database.db, A, "oak-desk-lamp")).toBeNull();
    await database.transaction((tx) => repo.activateSite(tx, activation(dep(1), 2)));
    await succeed(dep(1), 2);
    const first = await repo.readSite(database.db, A, "oak-desk-lamp");
    expect(first).toEqual({
      pointer: { page_id: PAGE, deployment_id: dep(1), activated_at: at(2), url: URL },
      deployment_id: dep(1),
      html: activation(dep(1), 2).html,
      page: activation(dep(1), 2).page,
    });

    await repo.insertDeployment(database.db, toDeployment(dep(2), PAGE, { created_at: at(3), updated_at: at(3) }));
    await database.transaction((tx) => repo.activateSite(tx, activation(dep(2), 4)));
    expect(await repo.readSitePointer(database.db, A, "oak-desk-lamp")).toEqual({ page_id: PAGE, deployment_id: dep(2), activated_at: at(4), url: URL });
    expect((await repo.readSite(database.db, A, "oak-desk-lamp"))?.html).toBe(activation(dep(2), 4).html);
    expect(await repo.readSiteFiles(database.db, dep(1))).toEqual({ deployment_id: dep(1), html: first!.html, page: first!.page });
    // Files are written once: activating the same deployment again keeps them.
    await database.transaction((tx) => repo.activateSite(tx, { ...activation(dep(2), 5), html: "<p>changed</p>" }));
    expect((await repo.readSiteFiles(database.db, dep(2)))?.html).toBe(activation(dep(2), 4).html);
    expect(await repo.readSitePointer(database.db, A, "oak-desk-lamp")).toMatchObject({ activated_at: at(5) });
    expect(await repo.readSite(database.db, B, "oak-desk-lamp")).toBeNull();
    expect(await repo.readSitePointer(database.db, A, "walnut-shelf")).toBeNull();
    expect(await repo.readSiteFiles(database.db, dep(9))).toBeNull();
  });

  it("stores a deployment's files ahead of its activation, once, and serves them once activated", async () => {
    await repo.insertDeployment(database.db, toDeployment(dep(1)));
    const { html, page } = activation(dep(1), 2);
    await repo.storeSiteFiles(database.db, { deployment_id: dep(1), html, page, created_at: at(2) });
    await repo.storeSiteFiles(database.db, { deployment_id: dep(1), html: "<p>again</p>", page, created_at: at(3) });
    expect(await repo.readSiteFiles(database.db, dep(1))).toEqual({ deployment_id: dep(1), html, page });
    // Nothing is live until the address points at them.
    expect(await repo.readSite(database.db, A, "oak-desk-lamp")).toBeNull();
    await database.transaction((tx) => repo.activateSite(tx, { ...activation(dep(1), 4), html: "<p>at activation</p>" }));
    expect(await repo.readSite(database.db, A, "oak-desk-lamp")).toMatchObject({ deployment_id: dep(1), html });
  });

  it("writes a site's files and pointer together, or neither", async () => {
    await repo.insertDeployment(database.db, toDeployment(dep(1)));
    await expect(
      database.transaction(async (tx) => {
        await repo.activateSite(tx, activation(dep(1), 2));
        throw new Error("the deployment's success could not be recorded");
      }),
    ).rejects.toThrow(/could not be recorded/);
    expect(await repo.readSitePointer(database.db, A, "oak-desk-lamp")).toBeNull();
    expect(await repo.readSiteFiles(database.db, dep(1))).toBeNull();
  });

  it("deletes a page's deployments, site and files with it; its checkout posts stay", async () => {
    await repo.insertDeployment(database.db, toDeployment(dep(1)));
    await database.transaction((tx) => repo.activateSite(tx, activation(dep(1), 2)));
    await succeed(dep(1), 2);
    await repo.insertDeployment(database.db, toDeployment(dep(2), PAGE, { created_at: at(3), updated_at: at(3) }));
    await repo.insertDeployment(database.db, toDeployment(dep(3), OTHER_PAGE));
    await repo.insertCheckout(database.db, { id: uuidOf(5, 1), account_id: A, page_id: PAGE, deployment_id: dep(1), values: { full_name: "Ada" }, created_at: at(4) });

    expect((await pages.deletePage(database.db, A, PAGE))?.id).toBe(PAGE);
    expect(await repo.readDeployment(database.db, dep(1))).toBeNull();
    expect(await repo.readDeployment(database.db, dep(2))).toBeNull();
    expect(await repo.activeDeployment(database.db, A, PAGE)).toBeNull();
    expect(await repo.readSite(database.db, A, "oak-desk-lamp")).toBeNull();
    expect(await repo.readSiteFiles(database.db, dep(1))).toBeNull();
    expect(await database.db.selectFrom("sites").selectAll().execute()).toEqual([]);
    // Nothing of the other page's changes, and the order taken through the page is kept.
    expect((await repo.readDeployment(database.db, dep(3)))?.status).toBe("deploying");
    expect((await repo.listCheckouts(database.db, A, { limit: 10 })).items.map((c) => c.id)).toEqual([uuidOf(5, 1)]);
  });

  it("keeps checkout posts and lists an account's newest first, page after page, by page when asked", async () => {
    const posts = [
      { n: 1, page: PAGE, created: at(1) },
      { n: 2, page: OTHER_PAGE, created: at(2) },
      { n: 3, page: PAGE, created: at(2) },
      { n: 4, page: PAGE, created: at(3) },
    ];
    for (const p of posts) {
      await repo.insertCheckout(database.db, { id: uuidOf(5, p.n), account_id: A, page_id: p.page, deployment_id: dep(1), values: { full_name: `Buyer ${p.n}`, phone: "+33 1 23" }, created_at: p.created });
    }
    const first = await repo.listCheckouts(database.db, A, { limit: 3 });
    expect(first.items.map((c) => c.id)).toEqual([uuidOf(5, 4), uuidOf(5, 3), uuidOf(5, 2)]);
    expect(first.items[0]).toEqual({ id: uuidOf(5, 4), account_id: A, page_id: PAGE, deployment_id: dep(1), values: { full_name: "Buyer 4", phone: "+33 1 23" }, created_at: at(3) });
    const second = await repo.listCheckouts(database.db, A, { limit: 3, after: first.next! });
    expect(second).toEqual({ items: [expect.objectContaining({ id: uuidOf(5, 1) })], hasMore: false, next: null });
    expect((await repo.listCheckouts(database.db, A, { pageId: PAGE, limit: 10 })).items.map((c) => c.id)).toEqual([uuidOf(5, 4), uuidOf(5, 3), uuidOf(5, 1)]);
    expect((await repo.listCheckouts(database.db, B, { limit: 10 })).items).toEqual([]);
  });
});
