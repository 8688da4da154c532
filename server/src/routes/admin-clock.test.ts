import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, defaultTestStorage, type TestApp } from "../testing/test-app.js";
import { createWebhookTestApp, eventsOf, type WebhookTestApp } from "./webhooks-test-kit.js";

const START = "2026-03-01T10:00:00.000Z";
const at = (ms: number) => new Date(Date.parse(START) + ms).toISOString();

// A manual clock is refused on Redis storage: there the suite checks only that refusal.
describe("/_admin/clock (DESIGN §15)", () => {
  let t: TestApp | WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });

  it("shows a system clock, which refuses to move", async () => {
    t = await createTestApp();
    const shown = await t.admin("GET", "/_admin/clock");
    expect(shown.status).toBe(200);
    expect(shown.json.data.mode).toBe("system");
    const moved = await t.admin("POST", "/_admin/clock", { advance: "5m" });
    expect(moved.status).toBe(400);
    expect(moved.json.error.message).toContain("--clock manual");
  });

  it("moves a manual clock forward by a duration or to a time, never back, and stamps records with it", async () => {
    t = await createTestApp({ manualClock: true });
    expect((await t.admin("GET", "/_admin/clock")).json.data).toEqual({ now: START, mode: "manual" });
    expect((await t.admin("POST", "/_admin/clock", { advance: "5m" })).json.data).toEqual({ now: at(300_000), mode: "manual" });
    expect((await t.admin("POST", "/_admin/clock", { to: "2026-03-02T00:00:00Z" })).json.data.now).toBe("2026-03-02T00:00:00.000Z");
    const back = await t.admin("POST", "/_admin/clock", { to: START });
    expect(back.status).toBe(400);
    expect(back.json.error.message).toContain("only moves forward");
    for (const body of [{ advance: "5 minutes" }, { advance: "-5m" }, { advance: "5m", to: START }, {}, { to: "tomorrow" }]) {
      expect((await t.admin("POST", "/_admin/clock", body)).status).toBe(400);
    }
    expect((await t.admin("POST", "/_admin/clock", { advance: "367d" })).json.error.message).toContain("366 days");
    const product = await t.call("POST", "products", { body: { title: "Lamp", price: 10, product_type: "physical" } });
    expect(product.json.data.created_at).toBe("2026-03-02T00:00:00.000Z");
    expect((await t.call("GET", "/_admin/clock", { token: t.creds.token })).status).toBe(401);
  });

  it("replays an Idempotency-Key answer within 24 hours of the clock, and not after", async () => {
    t = await createTestApp({ manualClock: true });
    const post = () => t.call("POST", "products", { body: { title: "Once", price: 1, product_type: "service" }, headers: { "idempotency-key": "k-1" } });
    const first = (await post()).json.data.id;
    await t.admin("POST", "/_admin/clock", { advance: "23h" });
    expect((await post()).json.data.id).toBe(first);
    await t.admin("POST", "/_admin/clock", { advance: "2h" });
    expect((await post()).json.data.id).not.toBe(first);
    // The hourly sweep of expired records runs on the clock too: 25 hours on, the second answer's record goes.
    const stored = () => t.core.database.db.selectFrom("idempotency_keys").select("key").where("account_id", "=", t.creds.account_id).execute();
    expect(await stored()).toHaveLength(1);
    await t.admin("POST", "/_admin/clock", { advance: "26h" });
    expect(await stored()).toEqual([]);
  });

  it("expires a token when the clock passes its lifetime", async () => {
    t = await createTestApp({ manualClock: true });
    const token = (await t.admin("POST", "/_admin/tokens", { account_id: t.creds.account_id, expires_in: 3600 })).json.data.token;
    expect((await t.call("GET", "products", { token })).status).toBe(200);
    await t.admin("POST", "/_admin/clock", { advance: "61m" });
    expect((await t.call("GET", "products", { token })).status).toBe(401);
  });

  it("runs the pauses of generation and deployment steps on the clock: an advance answers once they are done", async () => {
    t = await createTestApp({ manualClock: true });
    t.core.delays.generationStepMs = 60_000;
    const product = (await t.call("POST", "products", { body: { title: "Lamp", price: 10, product_type: "physical" } })).json.data;
    const job = (await t.call("POST", "pages", { body: { product_id: product.id } })).json.data;
    const jobUrl = `pages/jobs/${job.job_id}`;
    await t.admin("POST", "/_admin/clock", { advance: "30s" });
    expect((await t.call("GET", jobUrl)).json.data.status).toBe("processing");
    await t.admin("POST", "/_admin/clock", { advance: "1h" });
    const done = (await t.call("GET", jobUrl)).json.data;
    expect(done.status).toBe("completed");
    // Each step waited a minute of the clock: it finished minutes after the start, not at it.
    expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(Date.parse(START) + 3 * 60_000);

    // A deployment's steps likewise.
    t.core.delays.deploymentStepMs = 60_000;
    const started = await t.call("POST", `pages/${done.page_id}/deployments`, { body: {} });
    expect(started.status).toBe(202);
    const poll = started.json.data.poll_url as string;
    await t.admin("POST", "/_admin/clock", { advance: "30s" });
    expect((await t.call("GET", poll)).json.data.status).not.toBe("succeeded");
    await t.admin("POST", "/_admin/clock", { advance: "10m" });
    expect((await t.call("GET", poll)).json.data.status).toBe("succeeded");
  });

  it("sends each webhook retry when an advance passes its due time, stamped with it", async () => {
    const w = await createWebhookTestApp({ manualClock: true });
    t = w;
    const receiver = await w.receiver({ respond: [500, 500, 200] });
    const endpoint = await w.endpoint(receiver);
    await w.product();
    await w.admin("POST", "/_admin/clock", { advance: "1s" });
    const deliveries = async () => (await w.dev("GET", `/${endpoint.id}/deliveries`)).json.data[0];
    expect((await deliveries()).attempts).toHaveLength(1);
    // The second attempt is due about 5 s after the first (with jitter); the third about 5 minutes later.
    await w.admin("POST", "/_admin/clock", { advance: "10s" });
    expect((await deliveries()).attempts).toHaveLength(2);
    await w.admin("POST", "/_admin/clock", { advance: "10m" });
    const done = await deliveries();
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toHaveLength(3);
    const times = done.attempts.map((a: { started_at: string }) => Date.parse(a.started_at) - Date.parse(START));
    expect(times[1]).toBeGreaterThanOrEqual(4_000);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(4 * 60_000);
    expect(eventsOf(receiver)).toHaveLength(3);
  });

  it("signs with a rotated-out secret for 24 hours of the clock, then with the new one alone", async () => {
    const w = await createWebhookTestApp({ manualClock: true });
    t = w;
    const receiver = await w.receiver();
    const endpoint = await w.endpoint(receiver);
    const rotated = (await w.dev("POST", `/${endpoint.id}/rotate-secret`)).json.data;
    receiver.setSecret(rotated.secret);
    const signatures = async () => {
      receiver.clear();
      await w.product();
      await w.settle();
      const [delivery] = eventsOf(receiver);
      expect(delivery?.verified).toBe(true);
      return delivery!.headers["webhook-signature"]!.split(" ").length;
    };
    expect(await signatures()).toBe(2);
    await w.admin("POST", "/_admin/clock", { advance: "23h" });
    expect(await signatures()).toBe(2);
    await w.admin("POST", "/_admin/clock", { advance: "2h" });
    expect(await signatures()).toBe(1);
  });

  it("holds an open circuit until the clock passes it, then probes and closes it within the advance", async () => {
    const w = await createWebhookTestApp({ manualClock: true });
    t = w;
    let up = false;
    const receiver = await w.receiver({ respond: () => (up ? 200 : 500) });
    const endpoint = await w.endpoint(receiver);
    for (let i = 1; i <= 5; i++) await w.product(`P${i}`);
    await w.admin("POST", "/_admin/clock", { advance: "1ms" });
    const circuit = async () => (await w.dev("GET", `/${endpoint.id}`)).json.data.circuit;
    expect(await circuit()).toMatchObject({ state: "open", opens_until: "2026-03-01T10:00:30.000Z" });
    up = true;
    await w.admin("POST", "/_admin/clock", { advance: "20s" });
    expect(eventsOf(receiver)).toHaveLength(5);
    await w.admin("POST", "/_admin/clock", { advance: "15s" });
    expect(await circuit()).toMatchObject({ state: "closed", consecutive_failures: 0 });
    const deliveries = (await w.dev("GET", `/${endpoint.id}/deliveries?per_page=100`)).json.data;
    expect(deliveries.map((d: { status: string }) => d.status)).toEqual(Array(5).fill("succeeded"));
  });
});
