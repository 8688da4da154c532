import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

const inline = { title: "Secret Draft Lamp", description: "Brass, 40 cm.", price: 120, product_type: "physical" };

/**
 * The builder preview shows a page's unpublished edits, and the page id is printed by every deployed site,
 * so it opens only for the holder of the signed link `builder_url` carries, or for the owner's token.
 */
describe("the builder preview", () => {
  let t: TestApp;
  let pageId: string;
  let link: string;
  beforeEach(async () => {
    t = await createTestApp();
    const res = await t.call("POST", "pages", { body: { product: inline } });
    await t.core.onIdle();
    const job = (await t.call("GET", res.json.data.poll_url)).json.data;
    pageId = job.page_id;
    // An unpublished edit: what a stranger must not read.
    expect((await t.call("PATCH", `pages/${pageId}`, { body: { seo_config: { title: "Unreleased launch title" } } })).status).toBe(200);
    link = (await t.call("GET", `pages/${pageId}`)).json.data.builder_url;
    expect(job.builder_url).toBe(link);
  });
  afterEach(() => t.close());

  const open = (path: string, headers: Record<string, string> = {}) => t.app.request(path, { headers });
  const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;

  async function expectClosed(res: Response) {
    expect(res.status).toBe(404);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    expect(html).not.toContain("Secret Draft Lamp");
    expect(html).not.toContain("Unreleased launch title");
  }

  it("opens the signed link builder_url carries, without a live form, framed by this origin only", async () => {
    expect(link).toMatch(new RegExp(`^http://lp\\.test/builder/${pageId}\\?expires=\\d+&sig=`));
    const res = await open(pathOf(link));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    const html = await res.text();
    expect(html).toContain("Unreleased launch title");
    expect(html).toContain("<form");
    expect(html).not.toContain('action="http');
  });

  it("answers the bare page id, a tampered or foreign signature and an unknown page with the same 404", async () => {
    await expectClosed(await open(`/builder/${pageId}`));
    const url = new URL(link);
    const sig = url.searchParams.get("sig")!;
    await expectClosed(await open(`/builder/${pageId}?expires=${url.searchParams.get("expires")}&sig=${sig.startsWith("A") ? "B" : "A"}${sig.slice(1)}`));
    await expectClosed(await open(`/builder/${pageId}?expires=${Number(url.searchParams.get("expires")) + 86_400}&sig=${sig}`));
    await expectClosed(await open(`/builder/${pageId}?expires=${"9".repeat(50_000)}&sig=${sig}`));
    const other = await t.call("POST", "pages", { body: { product: { ...inline, title: "Another" } } });
    await t.core.onIdle();
    const otherLink = (await t.call("GET", other.json.data.poll_url)).json.data.builder_url as string;
    await expectClosed(await open(`/builder/${pageId}${new URL(otherLink).search}`));
    await expectClosed(await open(`/builder/00000000-0000-4000-8000-000000000000${url.search}`));
  });

  it("closes the link once it expires; the page then answers with a fresh one", async () => {
    t.clock.advance(25 * 3600 * 1000 + 1);
    await expectClosed(await open(pathOf(link)));
    const fresh = (await t.call("GET", `pages/${pageId}`)).json.data.builder_url;
    expect(fresh).not.toBe(link);
    expect((await open(pathOf(fresh))).status).toBe(200);
  });

  it("opens for the owner's token with pages:read, and for no other token", async () => {
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const owner = await open(`/builder/${pageId}`, bearer(t.creds.token));
    expect(owner.status).toBe(200);
    expect(await owner.text()).toContain("Unreleased launch title");

    expect((await t.admin("POST", "/_admin/accounts", { account_id: "acct_other" })).status).toBe(201);
    const stranger = (await t.admin("POST", "/_admin/tokens", { account_id: "acct_other", scopes: ["pages:read"] })).json.data.token;
    await expectClosed(await open(`/builder/${pageId}`, bearer(stranger)));
    const writeOnly = (await t.admin("POST", "/_admin/tokens", { account_id: t.creds.account_id, scopes: ["products:read"] })).json.data.token;
    await expectClosed(await open(`/builder/${pageId}`, bearer(writeOnly)));
    await expectClosed(await open(`/builder/${pageId}`, bearer("lp_not_a_real_token_000000")));
    await expectClosed(await open(`/builder/${pageId}`, bearer(t.adminKey)));
    await expectClosed(await open(`/builder/${pageId}`, { authorization: `Basic ${Buffer.from(`${t.creds.application_id}:${t.creds.client_secret}`).toString("base64")}` }));
  });
});
