import { afterEach, describe, expect, it } from "vitest";
import { createWebhookTestApp, eventsOf, type WebhookTestApp } from "./webhooks-test-kit.js";

describe("test deliveries (DESIGN §9: sent whatever the status, retried like any other)", () => {
  let t: WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });

  it("retries a failed test delivery on the schedule until it succeeds", async () => {
    t = await createWebhookTestApp({ coreDeps: { retrySchedule: [0, 1_000, 2_000] } });
    const receiver = await t.receiver({ respond: [500, 503, 200] });
    const endpoint = await t.endpoint(receiver);
    const res = await t.dev("POST", `/${endpoint.id}/test`);
    await t.settle();
    const first = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data[0];
    expect(first).toMatchObject({ id: res.json.data.id, status: "pending", attempts: [{ number: 1, trigger: "test", status_code: 500 }] });
    expect(first.next_attempt_at).not.toBeNull();

    await t.advance(1_300);
    await t.advance(2_500);
    const done = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data[0];
    expect(done.status).toBe("succeeded");
    expect(done.attempts.map((a: { trigger: string; status_code: number }) => [a.trigger, a.status_code])).toEqual([
      ["test", 500],
      ["scheduled", 503],
      ["scheduled", 200],
    ]);
    // Every attempt carried the same webhook-id.
    expect(new Set(eventsOf(receiver).map((d) => d.headers["webhook-id"]))).toEqual(new Set([res.json.data.id]));
  });

  it("sends and retries a test delivery to a paused endpoint, which still holds event deliveries", async () => {
    t = await createWebhookTestApp({ coreDeps: { retrySchedule: [0, 1_000] } });
    const receiver = await t.receiver({ respond: [500, 200] });
    const endpoint = await t.endpoint(receiver);
    expect((await t.dev("PATCH", `/${endpoint.id}`, { status: "paused" })).json.data.status).toBe("paused");
    await t.dev("POST", `/${endpoint.id}/test`);
    await t.product("Held");
    await t.settle();
    await t.advance(1_300);
    const deliveries = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    const test = deliveries.find((d: { event_type: string }) => d.event_type === "webhook.test");
    const held = deliveries.find((d: { event_type: string }) => d.event_type === "product.created");
    expect(test).toMatchObject({ status: "succeeded", attempts: [{ status_code: 500 }, { status_code: 200 }] });
    expect(held).toMatchObject({ status: "pending", attempts: [] });
    expect(eventsOf(receiver).map((d) => d.event?.type)).toEqual(["webhook.test", "webhook.test"]);
  });
});
