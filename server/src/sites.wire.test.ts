import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "./serve.js";

// A site's page is sent as bytes encoded once per deployment: these pin, over a real socket, that the bytes,
// their length and the page a redeploy makes are what the page's text says.
describe("a deployed site over HTTP", () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function deployed(title: string) {
    server = await startServer({ storage: "memory", port: 0, log: null, admin: false });
    const account = server.credentials.account_id;
    const product = await server.core.products.create(account, { title, description: "Émail, 350 ml — ☕", price: 24.5, product_type: "physical" });
    const { job_id } = await server.core.pages.create(account, { product_id: product.id }, null);
    await server.core.onIdle();
    const pageId = (await server.core.pages.getJob(account, job_id)).page_id!;
    await server.core.deployments.start(account, pageId, null);
    await server.core.onIdle();
    const url = (await server.core.pages.get(account, pageId)).deployed_url!;
    return { account, pageId, url };
  }

  it("sends the page's UTF-8 bytes with their length, to GET and HEAD alike", async () => {
    const { url } = await deployed("Café crème ☕ 日本");
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get("content-length"))).toBe(bytes.byteLength);
    const text = bytes.toString("utf8");
    expect(text).toContain("Café crème ☕ 日本");
    expect(text).toContain("Émail, 350 ml — ☕");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{24}$/);

    const head = await fetch(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    const again = await fetch(url, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("x-request-id")).not.toBe(res.headers.get("x-request-id"));
  });

  it("serves the new bytes once a redeploy moves the site's pointer", async () => {
    const { account, pageId, url } = await deployed("Lamp");
    const first = await (await fetch(url)).text();
    expect(first).toContain("Lamp");
    await server!.core.pages.update(account, pageId, { seo_config: { title: "Lampe à poser — édition 2" } });
    await server!.core.deployments.start(account, pageId, null);
    await server!.core.onIdle();
    const res = await fetch(url);
    const second = await res.text();
    expect(second).toContain("Lampe à poser — édition 2");
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(second));
  });
});
