import { describe, expect, it } from "vitest";
import { startLp } from "./start-lp.js";

describe("startLp", () => {
  it("serves the API on a loopback port with credentials, and hands out verified webhook events once each", async () => {
    await using lp = await startLp();
    expect(lp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lp.env).toMatchObject({ LP_API_URL: lp.url, LP_TOKEN: lp.credentials.token, LP_ACCOUNT: "acct_dev" });
    const first = await lp.client.products.create({ title: "Linen Apron", price: 42, product_type: "physical" });
    const second = await lp.client.products.create({ title: "Desk Lamp", price: 30, product_type: "physical" });
    const a = await lp.webhooks.next("product.created");
    const b = await lp.webhooks.next("product.created");
    expect([(a.data as { id: string }).id, (b.data as { id: string }).id]).toEqual([first.id, second.id]);
    expect(lp.webhooks.received.map((e) => e.type)).toEqual(["product.created", "product.created"]);
  });

  it("never counts a request that does not verify", async () => {
    await using lp = await startLp();
    const forged = await fetch(lp.webhooks.url, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": "msg_forged", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
      body: JSON.stringify({ type: "product.created", data: { id: "forged" } }),
    });
    expect(forged.status).toBe(400);
    await expect(lp.webhooks.next("product.created", { timeoutMs: 50 })).rejects.toThrow(/No product.created event within 50 ms \(received so far: none\)/);
  });

  it("gives two servers in one process nothing in common", async () => {
    const [a, b] = await Promise.all([startLp({ webhooks: false }), startLp({ webhooks: false })]);
    try {
      expect(a.webhooks).toBeNull();
      expect(a.credentials.token).not.toBe(b.credentials.token);
      await a.client.products.create({ title: "Only in a", price: 1, product_type: "physical" });
      expect((await a.client.products.list()).data.map((p) => p.title)).toEqual(["Only in a"]);
      expect((await b.client.products.list()).data).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("subscribes only to the events asked for", async () => {
    await using lp = await startLp({ webhooks: ["product.deleted"] });
    const product = await lp.client.products.create({ title: "Short-lived", price: 1, product_type: "physical" });
    await lp.client.products.delete(product.id);
    const event = await lp.webhooks.next();
    expect(event.type).toBe("product.deleted");
    expect(lp.webhooks.received.map((e) => e.type)).toEqual(["product.deleted"]);
  });

  it("closes at the end of an `await using` block, rejecting what is still awaited", async () => {
    let url = "";
    let pending: Promise<unknown> = Promise.resolve();
    {
      await using lp = await startLp();
      url = lp.url;
      pending = lp.webhooks.next("checkout.submitted", { timeoutMs: 60_000 });
      pending.catch(() => {});
    }
    await expect(pending).rejects.toThrow(/closed before the awaited webhook event arrived/);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
