import { afterEach, describe, expect, it } from "vitest";
import { defaultTestStorage } from "../testing/test-app.js";
import { createWebhookTestApp, eventsOf, type WebhookTestApp } from "./webhooks-test-kit.js";

/** The run's store, and SQLite, whose deliveries lists read the database itself (no index in memory). */
const STORES = [...new Set([defaultTestStorage(), "sqlite" as const])];

describe("webhook operations: test, deliveries, retry", () => {
  let t: WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });

  it("test schedules a signed webhook.test delivery and answers 202 before sending it", async () => {
    t = await createWebhookTestApp();
    const receiver = await t.receiver();
    const endpoint = await t.endpoint(receiver, { events: ["page.deleted"] });
    const res = await t.dev("POST", `/${endpoint.id}/test`);
    expect(res.status).toBe(202);
    expect(res.headers.get("location")).toBe(`/v1/developer/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(res.json.data).toMatchObject({ event_type: "webhook.test", status: "pending", attempts: [], payload: { type: "webhook.test", account_id: null, environment: "production", data: { endpoint_id: endpoint.id } } });
    await t.settle();
    const [event] = await receiver.expect({ type: "webhook.test", within: 1 });
    expect(event.id).toBe(res.json.data.event_id);
    expect(eventsOf(receiver)[0].verified).toBe(true);
    const [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries?event_type=webhook.test`)).json.data;
    expect(delivery).toMatchObject({ id: res.json.data.id, status: "succeeded", attempts: [{ number: 1, trigger: "test", outcome: "succeeded" }] });
  });

  it.each(STORES)("lists deliveries newest first, filtered by status and event_type, page by page with a bound cursor (%s)", async (storage) => {
    t = await createWebhookTestApp({ storage, coreDeps: { retrySchedule: [0] } });
    const receiver = await t.receiver({ respond: (d) => (JSON.parse(d.body).data.title === "Bad" ? 500 : 200) });
    const endpoint = await t.endpoint(receiver, { events: ["product.created", "product.updated"] });
    const titles = ["A", "B", "Bad", "C", "D"];
    for (const title of titles) await t.product(title);
    const d = await t.product("E");
    await t.call("PATCH", `products/${d.id}`, { body: { price: 11 } });
    await t.settle();

    const all = (await t.dev("GET", `/${endpoint.id}/deliveries?per_page=100`)).json;
    expect(all.data.map((x: any) => [x.event_type, x.payload.data.title])).toEqual([
      ["product.updated", "E"],
      ["product.created", "E"],
      ["product.created", "D"],
      ["product.created", "C"],
      ["product.created", "Bad"],
      ["product.created", "B"],
      ["product.created", "A"],
    ]);
    const failed = (await t.dev("GET", `/${endpoint.id}/deliveries?status=failed`)).json.data;
    expect(failed.map((x: any) => x.payload.data.title)).toEqual(["Bad"]);
    expect(failed[0].attempts[0]).toMatchObject({ status_code: 500, response_body: expect.any(String) });
    expect(all.data.filter((x: any) => x.status === "succeeded").every((x: any) => x.attempts[0].response_body === null)).toBe(true);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?event_type=product.created&per_page=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await t.dev("GET", `/${endpoint.id}/deliveries${query}`);
      expect(page.status).toBe(200);
      if (page.json.pagination.has_more) expect(page.headers.get("link")).toContain('rel="next"');
      seen.push(...page.json.data.map((x: any) => x.payload.data.title));
      cursor = page.json.pagination.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(["E", "D", "C", "Bad", "B", "A"]);
    expect(pages).toBe(3);

    const first = (await t.dev("GET", `/${endpoint.id}/deliveries?per_page=2&event_type=product.created`)).json.pagination.next_cursor;
    const mixed = await t.dev("GET", `/${endpoint.id}/deliveries?per_page=2&event_type=product.updated&cursor=${encodeURIComponent(first)}`);
    expect(mixed.status).toBe(400);
    expect(mixed.json.error.code).toBe("invalid_cursor");
    for (const query of ["status=done", "event_type=product.exploded", "event_type=webhook.verification", "per_page=0", "per_page=101"]) {
      const bad = await t.dev("GET", `/${endpoint.id}/deliveries?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.json.error.code, query).toBe("validation_error");
    }
  });

  it("retry marks a stored delivery pending and makes one manual attempt in the background", async () => {
    t = await createWebhookTestApp({ coreDeps: { retrySchedule: [0] } });
    let status = 500;
    const receiver = await t.receiver({ respond: () => status });
    const endpoint = await t.endpoint(receiver);
    await t.product();
    await t.settle();
    const [failed] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    expect(failed).toMatchObject({ status: "failed", attempts: [{ outcome: "failed" }] });

    // A manual attempt that fails again leaves the delivery failed: there is no schedule left.
    const again = await t.dev("POST", `/${endpoint.id}/deliveries/${failed.id}/retry`);
    expect(again.status).toBe(202);
    expect(again.json.data).toMatchObject({ id: failed.id, status: "pending", attempts: [{ number: 1 }] });
    await t.settle();
    let [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    expect(delivery).toMatchObject({ status: "failed", next_attempt_at: null });
    expect(delivery.attempts.map((a: any) => a.trigger)).toEqual(["scheduled", "manual"]);

    status = 200;
    expect((await t.dev("POST", `/${endpoint.id}/deliveries/${failed.id}/retry`, {})).status).toBe(202);
    await t.settle();
    [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    expect(delivery.status).toBe("succeeded");
    expect(delivery.attempts.map((a: any) => [a.number, a.trigger, a.outcome])).toEqual([
      [1, "scheduled", "failed"],
      [2, "manual", "failed"],
      [3, "manual", "succeeded"],
    ]);
    expect(new Set(eventsOf(receiver).map((d) => d.webhookId))).toEqual(new Set([failed.id]));
    expect(eventsOf(receiver).map((d) => d.attempt)).toEqual([1, 2, 3]);

    // A succeeded delivery can be sent again on request (a replay).
    expect((await t.dev("POST", `/${endpoint.id}/deliveries/${failed.id}/retry`)).status).toBe(202);
    await t.settle();
    expect(eventsOf(receiver)).toHaveLength(4);
    expect((await t.dev("POST", `/${endpoint.id}/deliveries/dlv_00000000000000000000/retry`)).json.error).toMatchObject({ code: "not_found", details: { resource: "delivery" } });
  });

  it("a manual retry of a still-pending delivery keeps the automatic schedule going", async () => {
    t = await createWebhookTestApp({ coreDeps: { retrySchedule: [0, 60_000, 60_000] } });
    const receiver = await t.receiver({ respond: [500, 500, 200] });
    const endpoint = await t.endpoint(receiver);
    await t.product();
    await t.settle();
    const [pending] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    await t.dev("POST", `/${endpoint.id}/deliveries/${pending.id}/retry`);
    await t.settle();
    let [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    expect(delivery).toMatchObject({ status: "pending", attempts: [{ trigger: "scheduled" }, { trigger: "manual" }] });
    await t.advance(80_000);
    [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
    expect(delivery.status).toBe("succeeded");
    expect(delivery.attempts.map((a: any) => a.trigger)).toEqual(["scheduled", "manual", "scheduled"]);
  });
});
