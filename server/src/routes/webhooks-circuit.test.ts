import { afterEach, describe, expect, it } from "vitest";
import { createWebhookTestApp, eventsOf, type WebhookTestApp } from "./webhooks-test-kit.js";

/** A promise the test settles by calling `open`. */
function latch() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("webhook circuit breaker and concurrency", () => {
  let t: WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });

  it("opens after 5 consecutive failures, sends nothing while open, probes after 30 s and closes on success", async () => {
    t = await createWebhookTestApp();
    let up = false;
    const receiver = await t.receiver({ respond: () => (up ? 200 : 500) });
    const endpoint = await t.endpoint(receiver);
    for (let i = 1; i <= 5; i++) await t.product(`P${i}`);
    await t.settle();
    expect(eventsOf(receiver)).toHaveLength(5);
    let ep = (await t.dev("GET", `/${endpoint.id}`)).json.data;
    expect(ep.circuit).toEqual({ state: "open", consecutive_failures: 5, reopen_count: 0, opens_until: "2026-03-01T10:00:30.000Z" });
    expect(ep.status).toBe("active");

    // While open nothing goes out: not a new event, not a due retry (5 s ± 20%), not a manual retry.
    await t.product("While open");
    await t.advance(10_000);
    const [first] = (await t.dev("GET", `/${endpoint.id}/deliveries?per_page=100`)).json.data.slice(-1);
    expect((await t.dev("POST", `/${endpoint.id}/deliveries/${first.id}/retry`)).status).toBe(202);
    await t.settle();
    expect(eventsOf(receiver)).toHaveLength(5);
    const waiting = (await t.dev("GET", `/${endpoint.id}/deliveries?per_page=100`)).json.data;
    expect(waiting.every((d: any) => d.status === "pending" && d.next_attempt_at === "2026-03-01T10:00:30.000Z")).toBe(true);

    up = true;
    await t.advance(19_999);
    expect(eventsOf(receiver)).toHaveLength(5);
    await t.advance(1);
    ep = (await t.dev("GET", `/${endpoint.id}`)).json.data;
    expect(ep.circuit).toEqual({ state: "closed", consecutive_failures: 0, reopen_count: 0, opens_until: null });
    const settled = (await t.dev("GET", `/${endpoint.id}/deliveries?per_page=100`)).json.data;
    expect(settled.map((d: any) => d.status)).toEqual(Array(6).fill("succeeded"));
    expect(eventsOf(receiver)).toHaveLength(11);
    expect(settled.find((d: any) => d.id === first.id).attempts.at(-1).trigger).toBe("manual");
  });

  it("re-opens for twice as long after a failed probe, and ten re-opens in a row disable the endpoint", async () => {
    t = await createWebhookTestApp({ coreDeps: { retrySchedule: [0, ...Array(20).fill(1_000)] } });
    const receiver = await t.receiver({ respond: 500 });
    const endpoint = await t.endpoint(receiver);
    for (let i = 1; i <= 5; i++) await t.product(`P${i}`);
    await t.settle();
    const seen: [string, number, string | null][] = [];
    for (let reopen = 0; reopen < 10; reopen++) {
      const { circuit, status } = (await t.dev("GET", `/${endpoint.id}`)).json.data;
      seen.push([status, circuit.reopen_count, circuit.opens_until]);
      const before = eventsOf(receiver).length;
      await t.advance(Date.parse(circuit.opens_until) - t.clock.now().getTime());
      expect(eventsOf(receiver).length - before, `exactly one probe after re-open ${reopen}`).toBe(1);
    }
    const ep = (await t.dev("GET", `/${endpoint.id}`)).json.data;
    expect(ep).toMatchObject({ status: "disabled", disabled_reason: "circuit_breaker", circuit: { state: "open", reopen_count: 10 } });
    // 30 s doubling per re-open, at most 10 minutes.
    const waits = seen.map(([, , until], i) => (i === 0 ? null : Date.parse(until!) - Date.parse(seen[i - 1][2]!)));
    expect(seen.map(([s, n]) => [s, n])).toEqual(Array.from({ length: 10 }, (_, i) => ["active", i]));
    expect(waits.slice(1)).toEqual([60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000, 600_000, 600_000]);
    await t.advance(3_600_000);
    const statuses = (await t.dev("GET", `/${endpoint.id}/deliveries?per_page=100`)).json.data.map((d: any) => d.status);
    expect(statuses.filter((s: string) => s === "pending")).toEqual([]);
    expect(statuses).toContain("skipped");

    // Verification brings it back, with a closed circuit.
    receiver.clear();
    const verified = await t.dev("POST", `/${endpoint.id}/verify`);
    expect(verified.json.data.endpoint).toMatchObject({ status: "active", disabled_reason: null, circuit: { state: "closed", reopen_count: 0 } });
  });

  it("never has more deliveries in flight than the endpoint's concurrency_limit", async () => {
    t = await createWebhookTestApp();
    // Answers are held until the test opens the gate, so how many requests are open at once depends on the
    // engine's limit alone, not on how fast this machine creates products or answers.
    let gate = latch();
    let inFlight = 0;
    let most = 0;
    let reached = latch();
    let awaited = 0;
    const receiver = await t.receiver({ respond: () => gate.promise.then(() => 200) });
    receiver.on("request", (d) => {
      if (d.challenge) return;
      most = Math.max(most, ++inFlight);
      if (inFlight === awaited) reached.open();
    });
    receiver.on("delivery", (d) => {
      if (!d.challenge) inFlight--;
    });
    const endpoint = await t.endpoint(receiver, { concurrency_limit: 2 });
    gate = latch();
    awaited = 2;
    for (let i = 0; i < 8; i++) await t.product(`P${i}`);
    await reached.promise;
    gate.open();
    await t.settle();
    await receiver.expect({ type: "product.created", count: 8, within: 1 });
    expect(most).toBe(2);

    // Raising the limit takes effect for the queue that already exists.
    most = 0;
    await t.dev("PATCH", `/${endpoint.id}`, { concurrency_limit: 5 });
    gate = latch();
    reached = latch();
    awaited = 5;
    for (let i = 0; i < 10; i++) await t.product(`Q${i}`);
    await reached.promise;
    gate.open();
    await t.settle();
    await receiver.expect({ type: "product.created", count: 18, within: 1 });
    expect(most).toBe(5);
  });
});
