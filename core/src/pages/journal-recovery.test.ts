import { describe, expect, it } from "vitest";
import { pageListSchema, type JobRecord, type PageRecord } from "../index.js";
import type { DomainEvent } from "../events/event-sink.js";
import { useRestarts } from "../testing/restarts.js";

/**
 * A page deletion writes many records (deployments, site, page, owner entry, media) and a generation job
 * writes its page before its own completion. A kill between two of those writes used to leave a page
 * that read back with its deployments gone, or a job `failed` whose page existed. Each state a kill can
 * leave is written here by hand, and a core is opened on it as after a restart.
 */
describe("the page journal after a crash", () => {
  const { folder, open, shut } = useRestarts();

  /** A folder with one generated (and optionally deployed) page. */
  async function withPage(deploy: boolean) {
    const dir = folder("lp-journal-");
    const core = await open(dir);
    const { job_id } = await core.pages.create("acct_dev", { product: { title: "Journal", description: "A page", price: 5, product_type: "service" } }, null);
    await core.onIdle();
    const job = (await core.stores.data.getItem<JobRecord>(`acct:acct_dev:jobs:${job_id}`))!;
    const page = (await core.stores.data.getItem<PageRecord>(`acct:acct_dev:pages:${job.page_id}`))!;
    const deployment = deploy ? await core.deployments.start("acct_dev", page.id, null) : null;
    await core.onIdle();
    await shut(core);
    return { dir, job, page, deploymentId: deployment?.deployment_id, data: core.stores.data, media: core.media };
  }

  it("a deletion killed after the deployments and site went, before the page: the restart finishes it", async () => {
    const { dir, page, deploymentId, data, media } = await withPage(true);
    expect(await media.paths(`pages/${page.id}`)).not.toEqual([]);
    // The journal entry, then what the first steps removed; the page record, its owner entry and media remain.
    await data.setItem(`deleting:pages:acct_dev:${page.id}`, { page });
    await data.removeItem(`sites:acct_dev:${page.slug}`);
    await data.removeItem(`acct:acct_dev:deployments:${page.id}:${deploymentId}`);

    const core = await open(dir);
    await expect(core.pages.get("acct_dev", page.id)).rejects.toMatchObject({ code: "not_found" });
    expect((await core.pages.list("acct_dev", pageListSchema.parse({}))).data).toEqual([]);
    expect(await core.pages.findPage(page.id)).toBeNull();
    expect(await core.stores.data.getItem(`pageowners:${page.id}`)).toBeNull();
    expect(await core.media.paths(`pages/${page.id}`)).toEqual([]);
    expect(await core.stores.data.getItem(`deleting:pages:acct_dev:${page.id}`)).toBeNull();
  });

  it("a job killed after its page was written: the restart completes the job with that page", async () => {
    const { dir, job, page, data } = await withPage(false);
    await data.setItem(`acct:acct_dev:jobs:${job.job_id}`, { ...job, status: "processing", step: "building_page", page_id: null, builder_url: null, completed_at: null });
    await data.setItem(`inflight:jobs:acct_dev:${job.job_id}`, { at: job.created_at, page_id: page.id });

    const core = await open(dir);
    expect(await core.pages.getJob("acct_dev", job.job_id)).toMatchObject({ status: "completed", step: "done", page_id: page.id, error: null });
    expect(await core.stores.data.getItem(`inflight:jobs:acct_dev:${job.job_id}`)).toBeNull();
  });

  it("a job killed after its page and completion were written, before page.created went out: the restart announces the page", async () => {
    const { dir, job, page, data } = await withPage(false);
    // The page, its owner and the completed job are one change; the journal entry outlives them until the event.
    expect(job.status).toBe("completed");
    await data.setItem(`inflight:jobs:acct_dev:${job.job_id}`, { at: job.created_at, page_id: page.id });

    const emitted: DomainEvent[] = [];
    const core = await open(dir, { emit: async (event) => void emitted.push(event) });
    expect(emitted.filter((e) => e.type === "page.created").map((e) => (e.data as { id: string }).id)).toEqual([page.id]);
    expect(await core.pages.getJob("acct_dev", job.job_id)).toMatchObject({ status: "completed", page_id: page.id });
    expect(await core.stores.data.getItem(`inflight:jobs:acct_dev:${job.job_id}`)).toBeNull();
  });

  it("a generated page leaves no journal entry of its job behind once announced", async () => {
    const { job, data } = await withPage(false);
    expect(await data.getItem(`inflight:jobs:acct_dev:${job.job_id}`)).toBeNull();
  });

  it("a job killed after drawing its images, before its page: the restart fails it and removes the images", async () => {
    const { dir, job, page, data, media } = await withPage(false);
    expect(await media.paths(`pages/${page.id}`)).not.toEqual([]);
    // As if the page had never been written: only its images exist.
    await data.removeItem(`acct:acct_dev:pages:${page.id}`);
    await data.setItem(`acct:acct_dev:jobs:${job.job_id}`, { ...job, status: "processing", step: "building_page", page_id: null, builder_url: null, completed_at: null });
    await data.setItem(`inflight:jobs:acct_dev:${job.job_id}`, { at: job.created_at, page_id: page.id });

    const core = await open(dir);
    expect(await core.pages.getJob("acct_dev", job.job_id)).toMatchObject({ status: "failed", error: { code: "worker_terminated" } });
    expect(await core.media.paths(`pages/${page.id}`)).toEqual([]);
  });
});
