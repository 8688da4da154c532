import { afterEach, describe, expect, it } from "vitest";
import { defaultTestStorage, testStorages } from "../testing/test-app.js";

import { createWebhookTestApp, eventsOf, type WebhookTestApp } from "./webhooks-test-kit.js";

describe.each(testStorages())("POST /_admin/webhook-endpoints/{id}/replay (%s)", (storage) => {
  let t: WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });
  const replay = (id: string, body?: unknown) => t.admin("POST", `/_admin/webhook-endpoints/${id}/replay`, body);

  it("sends an endpoint created late the events it missed, each once, as they were", async () => {
    t = await createWebhookTestApp({ storage });
    const a = await t.product("A");
    const b = await t.product("B");
    const receiver = await t.receiver();
    const endpoint = await t.endpoint(receiver, { concurrency_limit: 1 });
    const res = await replay(endpoint.id, { since: "10m" });
    expect(res.status).toBe(202);
    expect(res.json.data).toEqual({ endpoint_id: endpoint.id, replayed: 2, since: "2026-03-01T09:50:00.000Z", until: "2026-03-01T10:00:00.000Z" });
    await t.settle();
    const got = eventsOf(receiver);
    expect(got.map((d) => (d.event?.data as { id: string }).id)).toEqual([a.id, b.id]);
    expect(got.every((d) => d.verified && d.event?.timestamp === "2026-03-01T10:00:00.000Z")).toBe(true);
    // Replayed again: new messages (new webhook-ids) of the same events.
    expect((await replay(endpoint.id, {})).json.data.replayed).toBe(2);
    await t.settle();
    const again = eventsOf(receiver);
    expect(again).toHaveLength(4);
    expect(new Set(again.map((d) => d.webhookId)).size).toBe(4);
    expect(new Set(again.map((d) => d.event?.id)).size).toBe(2);
    const deliveries = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    expect(deliveries).toHaveLength(4);
    expect(deliveries.every((d: { status: string }) => d.status === "succeeded")).toBe(true);
  });

  it("takes only the window, the types asked and subscribed, and the application's accounts", async () => {
    t = await createWebhookTestApp({ storage, manualClock: true });
    const receiver = await t.receiver();
    // One attempt at a time: the receiver sees the events in the order they are replayed, oldest first.
    const endpoint = await t.endpoint(receiver, { events: ["product.created", "product.deleted"], concurrency_limit: 1 });
    const early = await t.product("Early");
    await t.admin("POST", "/_admin/clock", { advance: "30m" });
    const late = await t.product("Late");
    await t.call("DELETE", `products/${late.id}`);
    await t.call("POST", "pages", { body: { product_id: early.id } });
    // Another account, where the dev application is not installed: none of its events are the endpoint's.
    await t.admin("POST", "/_admin/accounts", { account_id: "acct_other" });
    const other = (await t.admin("POST", "/_admin/tokens", { account_id: "acct_other" })).json.data.token;
    await t.product("Elsewhere", other, "/v1/accounts/acct_other");
    await t.settle();
    receiver.clear();
    const ids = async (body: unknown) => {
      receiver.clear();
      const replayed = (await replay(endpoint.id, body)).json.data.replayed;
      await t.settle();
      const types = eventsOf(receiver).map((d) => `${d.event?.type} ${(d.event?.data as { id?: string; title?: string }).id}`);
      expect(types).toHaveLength(replayed);
      return types;
    };
    expect(await ids({})).toEqual([`product.created ${early.id}`, `product.created ${late.id}`, `product.deleted ${late.id}`]);
    expect(await ids({ since: "10m" })).toEqual([`product.created ${late.id}`, `product.deleted ${late.id}`]);
    expect(await ids({ until: "2026-03-01T10:10:00Z" })).toEqual([`product.created ${early.id}`]);
    expect(await ids({ event_types: ["product.deleted"] })).toEqual([`product.deleted ${late.id}`]);
    expect(await ids({ event_types: ["page.created"] })).toEqual([]);
  });

  it("keeps events for the retention by the clock, and refuses what it cannot do", async () => {
    t = await createWebhookTestApp({ storage, manualClock: true });
    const receiver = await t.receiver();
    const endpoint = await t.endpoint(receiver);
    await t.product("Old");
    await t.admin("POST", "/_admin/clock", { advance: "6d" });
    expect((await replay(endpoint.id, {})).json.data.replayed).toBe(1);
    await t.admin("POST", "/_admin/clock", { advance: "2d" });
    expect((await replay(endpoint.id, {})).json.data.replayed).toBe(0);
    expect((await replay("we_0000000000000000000000000000", {})).status).toBe(404);
    expect((await replay("nope", {})).status).toBe(404);
    for (const body of [{ since: "yesterday" }, { since: "1m", until: "10m" }, { event_types: ["no.such"] }, { extra: 1 }]) {
      expect((await replay(endpoint.id, body)).status).toBe(400);
    }
    await t.dev("PATCH", `/${endpoint.id}`, { status: "disabled" });
    const disabled = await replay(endpoint.id, {});
    expect(disabled.status).toBe(400);
    expect(disabled.json.error.message).toContain("disabled");
    expect((await t.call("POST", `/_admin/webhook-endpoints/${endpoint.id}/replay`, { body: {}, token: t.creds.token })).status).toBe(401);
  });
});
