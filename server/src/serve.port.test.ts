import { afterEach, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "./serve.js";

describe("startServer over a real port", () => {
  let server: RunningServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it("refuses a port browsers block instead of listening on another one", async () => {
    const refused = await startServer({ storage: "memory", port: 6000, log: null }).catch((error: NodeJS.ErrnoException) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as NodeJS.ErrnoException).code).toBe("EUNSAFEPORT");
    expect((refused as Error).message).toContain("Port 6000 is one browsers refuse to connect to");
  });

  it("answers health checks and a product round trip on loopback, then closes", async () => {
    server = await startServer({ storage: "memory", port: 0, log: null });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok", storage: "memory" });
    expect(health.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: "ready", storage: "memory" });

    const base = `${server.url}/v1/accounts/${server.credentials.account_id}/products`;
    const auth = { authorization: `Bearer ${server.credentials.token}` };
    const created = await fetch(base, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "idempotency-key": "port-1" },
      body: JSON.stringify({ title: "Over the wire", price: 9.99, product_type: "physical" }),
    });
    expect(created.status).toBe(201);
    const product = (await created.json()).data;
    expect(product.preview_image_url.startsWith(`${server.url}/media/placeholders/`)).toBe(true);
    const got = await fetch(`${base}/${product.id}`, { headers: auth });
    expect((await got.json()).data).toEqual(product);
    const placeholder = await fetch(product.preview_image_url);
    expect(placeholder.headers.get("content-type")).toBe("image/svg+xml");
    await placeholder.arrayBuffer();

    const missing = await fetch(`${base}/not-a-uuid`, { headers: auth });
    expect(missing.status).toBe(404);
    const body = await missing.json();
    expect(body.error.request_id).toBe(missing.headers.get("x-request-id"));
    const denied = await fetch(base);
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toMatch(/^Bearer/);
    await denied.arrayBuffer();

    const url = server.url;
    await server.close();
    server = null;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("streams a multipart upload over the wire and refuses an oversized JSON body with 413", async () => {
    server = await startServer({ storage: "memory", port: 0, log: null });
    const base = `${server.url}/v1/accounts/${server.credentials.account_id}/products`;
    const auth = { authorization: `Bearer ${server.credentials.token}` };
    const form = new FormData();
    form.set("title", "Poster");
    form.set("price", "3");
    form.set("product_type", "physical");
    form.append("images", new Blob([Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1")]), "p.gif");
    const created = await fetch(base, { method: "POST", headers: auth, body: form });
    expect(created.status).toBe(201);
    const image = (await created.json()).data.images[0];
    expect(image.media_type).toBe("image/gif");
    const media = await fetch(image.url);
    expect(media.headers.get("content-type")).toBe("image/gif");
    await media.arrayBuffer();

    const huge = await fetch(base, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ title: "x", price: 1, product_type: "service", description: "y".repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error.code).toBe("payload_too_large");
  });
});
