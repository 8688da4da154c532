import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";

describe("webhook endpoints and the admin API", () => {
  let t: WebhookTestApp;
  beforeEach(async () => {
    t = await createWebhookTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it("an admin reset forgets endpoints; an import brings them back, live", async () => {
    const receiver = await t.receiver();
    const created = await t.endpoint(receiver);
    await t.product("Before export");
    await t.settle();
    const before = (await t.dev("GET", `/${created.id}/deliveries`)).json.data;
    expect(before).toMatchObject([{ status: "succeeded", attempts: [{ outcome: "succeeded" }] }]);
    const exported = await t.admin("GET", "/_admin/export");
    expect((await t.admin("POST", "/_admin/reset")).status).toBe(200);
    expect((await t.dev("GET")).json.data).toEqual([]);
    await t.product("After reset");
    await t.settle();
    expect(receiver.deliveries.filter((d) => !d.challenge)).toHaveLength(1);

    expect((await t.admin("POST", "/_admin/import", exported.json)).status).toBe(200);
    expect((await t.dev("GET", `/${created.id}`)).json.data.status).toBe("active");
    // The delivery history came back with it, attempts and payload as they were.
    expect((await t.dev("GET", `/${created.id}/deliveries`)).json.data).toEqual(before);
    receiver.clear();
    await t.product("After import");
    await t.settle();
    const [event] = await receiver.expect({ type: "product.created", within: 1 });
    expect(event.data).toMatchObject({ title: "After import" });
    expect((await t.dev("GET", `/${created.id}/deliveries`)).json.data).toHaveLength(2);
  });
});
