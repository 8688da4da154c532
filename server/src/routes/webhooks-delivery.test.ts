import { cryptoIds } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
import { testStorages } from "../testing/test-app.js";
import { createWebhookTestApp, eventsOf, verifyWithReference, type WebhookTestApp } from "./webhooks-test-kit.js";

for (const storage of testStorages()) {
  describe(`webhook deliveries (${storage})`, () => {
    let t: WebhookTestApp;
    afterEach(async () => {
      await t?.close();
    });

    it("delivers a subscribed event, signed, with the Standard Webhooks headers and the event envelope", async () => {
      t = await createWebhookTestApp({ storage });
      const receiver = await t.receiver();
      const endpoint = await t.endpoint(receiver, { events: ["product.created", "product.deleted"] });
      const product = await t.product("Desk lamp");
      await t.settle();
      const [event] = await receiver.expect({ type: "product.created", within: 1 });
      const [sent] = eventsOf(receiver);
      expect(sent.verified).toBe(true);
      expect(verifyWithReference(endpoint.secret, sent)).toEqual(event);
      expect(sent.headers).toMatchObject({ "webhook-event-type": "product.created", "webhook-attempt": "1", "content-type": "application/json" });
      expect(sent.headers["webhook-id"]).toMatch(/^dlv_[0-9a-f]+$/);
      expect(sent.headers["webhook-timestamp"]).toBe(String(Date.parse("2026-03-01T10:00:00.000Z") / 1000));
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-f]+$/),
        type: "product.created",
        timestamp: "2026-03-01T10:00:00.000Z",
        account_id: t.creds.account_id,
        environment: "production",
        data: product,
      });
      const list = await t.dev("GET", `/${endpoint.id}/deliveries`);
      expect(list.json.data).toHaveLength(1);
      const [delivery] = list.json.data;
      expect(delivery).toMatchObject({ id: sent.headers["webhook-id"], event_id: event.id, event_type: "product.created", status: "succeeded", next_attempt_at: null, payload: event });
      expect(delivery.attempts).toEqual([
        { number: 1, trigger: "scheduled", started_at: "2026-03-01T10:00:00.000Z", status_code: 200, latency_ms: expect.any(Number), outcome: "succeeded", error: null, response_body: null, truncated: false },
      ]);
    });

    it("sends nothing for unsubscribed events or another environment", async () => {
      t = await createWebhookTestApp({ storage });
      const receiver = await t.receiver();
      const endpoint = await t.endpoint(receiver, { events: ["product.updated"] });
      const testReceiver = await t.receiver();
      const testEndpoint = await t.endpoint(testReceiver, { events: ["product.created"], environment: "test" });
      const product = await t.product();
      await t.call("PATCH", `products/${product.id}`, { body: { title: "Renamed" } });
      await t.settle();
      expect(eventsOf(receiver).map((d) => d.eventType)).toEqual(["product.updated"]);
      expect(eventsOf(testReceiver)).toEqual([]);
      expect((await t.dev("GET", `/${testEndpoint.id}/deliveries`)).json.data).toEqual([]);
      expect((await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data.map((d: any) => d.event_type)).toEqual(["product.updated"]);

      // A test-environment account installed on the same application does reach the test endpoint.
      await t.admin("POST", "/_admin/accounts", { account_id: "acct_sandbox", environment: "test" });
      const app = await t.admin("POST", "/_admin/apps", { name: "sandbox partner", account_ids: ["acct_sandbox"] });
      const auth = t.basicOf(app.json.data.application_id, app.json.data.client_secret);
      const sandboxReceiver = await t.receiver();
      const sandboxEndpoint = await t.endpoint(sandboxReceiver, { environment: "test" }, auth);
      const token = (await t.admin("POST", "/_admin/tokens", { account_id: "acct_sandbox" })).json.data.token;
      await t.product("Sandbox", token, "/v1/accounts/acct_sandbox");
      await t.product("Production");
      await t.settle();
      const [got] = await sandboxReceiver.expect({ type: "product.created", within: 1 });
      expect(got).toMatchObject({ account_id: "acct_sandbox", environment: "test", data: { title: "Sandbox" } });
      expect(eventsOf(sandboxReceiver)).toHaveLength(1);
      expect((await t.dev("GET", `/${sandboxEndpoint.id}/deliveries`, undefined, auth)).json.data).toHaveLength(1);
      expect(eventsOf(testReceiver)).toEqual([]);
    });

    it("holds deliveries of a paused endpoint pending until verification makes it active", async () => {
      t = await createWebhookTestApp({ storage });
      const receiver = await t.receiver();
      const endpoint = await t.endpoint(receiver);
      expect((await t.dev("PATCH", `/${endpoint.id}`, { status: "paused" })).json.data).toMatchObject({ status: "paused", disabled_reason: null });
      await t.product("Held");
      await t.settle();
      await t.advance(3_600_000);
      expect(eventsOf(receiver)).toEqual([]);
      const [held] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
      expect(held).toMatchObject({ status: "pending", attempts: [], next_attempt_at: null });
      const verified = await t.dev("POST", `/${endpoint.id}/verify`);
      expect(verified.json.data.endpoint.status).toBe("active");
      await t.settle();
      const [event] = await receiver.expect({ type: "product.created", within: 1 });
      expect(event.data).toMatchObject({ title: "Held" });
      expect((await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data[0]).toMatchObject({ id: held.id, status: "succeeded" });
    });

    it("records deliveries of a disabled endpoint as skipped, and sends nothing", async () => {
      t = await createWebhookTestApp({ storage });
      const receiver = await t.receiver();
      const endpoint = await t.endpoint(receiver);
      expect((await t.dev("PATCH", `/${endpoint.id}`, { status: "disabled" })).json.data).toMatchObject({ status: "disabled", disabled_reason: "manual" });
      await t.product();
      await t.settle();
      expect(eventsOf(receiver)).toEqual([]);
      const [skipped] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
      expect(skipped).toMatchObject({ status: "skipped", attempts: [], skipped_reason: "endpoint_disabled" });
      expect((await t.dev("GET", `/${endpoint.id}/deliveries?status=skipped`)).json.data).toHaveLength(1);
    });

    it("retries on the schedule with jitter from the injected random source, keeping webhook-id", async () => {
      t = await createWebhookTestApp({ storage, coreDeps: { ids: { ...cryptoIds, random: () => 0 } } });
      const receiver = await t.receiver({ respond: [500, 503, 200] });
      const endpoint = await t.endpoint(receiver);
      await t.product();
      await t.settle();
      let [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
      // random() = 0 is the low edge of ±20%: 5 s becomes 4 s.
      expect(delivery).toMatchObject({ status: "pending", next_attempt_at: "2026-03-01T10:00:04.000Z" });
      expect(delivery.attempts[0]).toMatchObject({ number: 1, status_code: 500, outcome: "failed", response_body: expect.stringContaining("scripted_status"), truncated: false });
      await t.advance(3_999);
      expect(eventsOf(receiver)).toHaveLength(1);
      await t.advance(1);
      expect(eventsOf(receiver)).toHaveLength(2);
      [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
      expect(delivery.next_attempt_at).toBe("2026-03-01T10:04:04.000Z");
      await t.advance(240_000);
      [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
      expect(delivery.status).toBe("succeeded");
      expect(delivery.attempts.map((a: any) => [a.number, a.status_code, a.outcome, a.started_at, a.response_body === null])).toEqual([
        [1, 500, "failed", "2026-03-01T10:00:00.000Z", false],
        [2, 503, "failed", "2026-03-01T10:00:04.000Z", false],
        [3, 200, "succeeded", "2026-03-01T10:04:04.000Z", true],
      ]);
      const sent = eventsOf(receiver);
      expect(new Set(sent.map((d) => d.webhookId))).toEqual(new Set([delivery.id]));
      expect(sent.map((d) => d.attempt)).toEqual([1, 2, 3]);
      expect(sent.map((d) => d.verified)).toEqual([true, true, true]);
    });

    it("fails a delivery once the schedule is over, and caps stored response bodies at 4 KiB", async () => {
      t = await createWebhookTestApp({ storage, coreDeps: { retrySchedule: [0, 1000] } });
      const receiver = await t.receiver({ respond: () => ({ status: 500, body: "x".repeat(10_000) }) });
      const endpoint = await t.endpoint(receiver);
      await t.product();
      await t.settle();
      await t.advance(2_000);
      const [delivery] = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data;
      expect(delivery).toMatchObject({ status: "failed", next_attempt_at: null });
      expect(delivery.attempts).toHaveLength(2);
      expect(delivery.attempts[1].response_body).toHaveLength(4096);
      expect(delivery.attempts[1].truncated).toBe(true);
    });

    it("disables the endpoint on 410 and skips what comes next", async () => {
      t = await createWebhookTestApp({ storage });
      const receiver = await t.receiver({ respond: 410 });
      const endpoint = await t.endpoint(receiver);
      await t.product("First");
      await t.settle();
      expect((await t.dev("GET", `/${endpoint.id}`)).json.data).toMatchObject({ status: "disabled", disabled_reason: "gone" });
      await t.product("Second");
      await t.settle();
      await t.advance(24 * 3_600_000);
      const statuses = (await t.dev("GET", `/${endpoint.id}/deliveries`)).json.data.map((d: any) => [d.payload.data.title, d.status, d.attempts.length]);
      expect(statuses).toEqual([["Second", "skipped", 0], ["First", "failed", 1]]);
      expect(eventsOf(receiver)).toHaveLength(1);
    });
  });
}
