import { createReceiver, type Receiver } from "@lp/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf } from "./routes/webhooks-test-kit.js";
import { DAMAGED_STORES, selectValue, unreadableLine, type DamagedStore } from "./testing/damaged-stores.js";
import type { TestApp } from "./testing/test-app.js";

const ENDPOINTS = "/v1/developer/webhook-endpoints";

describe.each(["sqlite", "memory"] as const)("damaged webhook rows on %s", (kind) => {
  let store: DamagedStore;
  let t: TestApp | null = null;
  let lines: string[] = [];
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await t?.close();
    t = null;
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    store?.dispose();
  });
  const open = async () => {
    store = DAMAGED_STORES[kind]();
    lines = [];
    t = await store.open(lines);
    return t;
  };
  const damage = async (...updates: string[]) => {
    ({ app: t, lines } = await store.edit(t!, ...updates));
    // The rows were changed behind the engine's back: it takes what is due now, as a start does.
    await t.core.webhooks.reload();
    await t.core.onIdle();
    return t;
  };
  const named = (id: string) => lines.filter((l) => l.includes(id));
  const dev = (method: string, path = "", body?: unknown) => {
    const basic = Buffer.from(`${t!.creds.application_id}:${t!.creds.client_secret}`).toString("base64");
    return t!.call(method, `${ENDPOINTS}${path}`, { body, token: null, headers: { authorization: `Basic ${basic}` } });
  };
  /** An endpoint of the dev application subscribed to product.created, sending to a receiver of its own. */
  async function endpoint(): Promise<{ id: string; receiver: Receiver }> {
    const receiver = await createReceiver({ now: () => t!.clock.now() });
    receivers.push(receiver);
    const res = await dev("POST", "", { url: `${receiver.url}/hooks`, events: ["product.created"] });
    expect(res.status).toBe(201);
    receiver.setSecret(res.json.data.secret);
    return { id: res.json.data.id, receiver };
  }
  async function product(title: string): Promise<string> {
    const res = await t!.call("POST", "products", { body: { title, product_type: "physical", price: 3 } });
    expect(res.status).toBe(201);
    await t!.core.onIdle();
    return res.json.data.id;
  }
  /** The endpoint's deliveries by the product each carries. */
  async function deliveriesOf(endpointId: string): Promise<Map<string, { id: string; event_id: string }>> {
    const list = await dev("GET", `/${endpointId}/deliveries`);
    expect(list.status).toBe(200);
    return new Map(list.json.data.map((d: { id: string; event_id: string; payload: { data: { id: string } } }) => [d.payload.data.id, d]));
  }

  it("a damaged endpoint: its GET and PATCH answer record_unreadable naming it, lists and fan-outs leave it out, the others are sent", async () => {
    await open();
    const [damaged, sound] = [await endpoint(), await endpoint()];
    await damage(`UPDATE webhook_endpoints SET last_verification = '{"outcome":"maybe"}' WHERE id = '${damaged.id}'`);
    const get = await dev("GET", `/${damaged.id}`);
    expect(get.status).toBe(500);
    expect(get.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "webhook endpoint", id: damaged.id } });
    expect((await dev("PATCH", `/${damaged.id}`, { concurrency_limit: 2 })).json.error.code).toBe("record_unreadable");
    expect((await dev("GET")).json.data.map((e: { id: string }) => e.id)).toEqual([sound.id]);
    // A change whose event the damaged endpoint subscribes to goes through, and is sent to the sound one.
    await product("Lamp");
    expect(eventsOf(sound.receiver).map((d) => [d.eventType, d.verified])).toEqual([["product.created", true]]);
    expect(eventsOf(damaged.receiver)).toEqual([]);
    expect(named(damaged.id)).toEqual([unreadableLine(store, `webhook_endpoints/${damaged.id}`, 'last_verification.outcome is "maybe", not one of succeeded, failed')]);
  });

  it("a delivery whose attempt or event is damaged: lists leave it out, its retry answers record_unreadable naming the row", async () => {
    await open();
    const { id } = await endpoint();
    const [lamp, chair, desk] = [await product("Lamp"), await product("Chair"), await product("Desk")];
    const before = await deliveriesOf(id);
    const [cut, torn, kept] = [before.get(lamp)!, before.get(chair)!, before.get(desk)!];
    await damage(`UPDATE delivery_attempts SET latency_ms = 'slow' WHERE delivery_id = '${cut.id}'`, `UPDATE events SET data = '[1,2' WHERE id = '${torn.event_id}'`);
    for (let i = 0; i < 2; i++) expect([...(await deliveriesOf(id)).values()].map((d) => d.id)).toEqual([kept.id]);
    const retried = await dev("POST", `/${id}/deliveries/${cut.id}/retry`);
    expect(retried.status).toBe(500);
    expect(retried.json.error).toMatchObject({ code: "record_unreadable", details: { resource: "delivery", id: cut.id } });
    expect((await dev("POST", `/${id}/deliveries/${torn.id}/retry`)).json.error).toMatchObject({ code: "record_unreadable", details: { resource: "event", id: torn.event_id } });
    expect((await dev("POST", `/${id}/deliveries/${kept.id}/retry`)).status).toBe(202);
    expect(named(cut.id)).toEqual([unreadableLine(store, `delivery_attempts/${cut.id}/1`, 'latency_ms is "slow", not an integer')]);
    expect(named(torn.event_id)).toEqual([unreadableLine(store, `events/${torn.event_id}`, "data is not valid JSON (cut short or edited)")]);
  });

  it("a due delivery that is damaged: the worker names it once and leaves it held, unsent; the others are sent", async () => {
    await open();
    const { id, receiver } = await endpoint();
    const lamp = await product("Lamp");
    const delivery = (await deliveriesOf(id)).get(lamp)!;
    await damage(`UPDATE webhook_deliveries SET status = 'pending', due_at = '2026-03-01T10:00:00.000Z', scheduled_attempts = 'x' WHERE id = '${delivery.id}'`);
    expect(await selectValue(t!, `SELECT coalesce(due_at, lease_owner, 'held') FROM webhook_deliveries WHERE id = '${delivery.id}'`)).toBe("held");
    expect(eventsOf(receiver)).toHaveLength(1);
    await product("Chair");
    expect(eventsOf(receiver)).toHaveLength(2);
    // No failure of the worker, no second line: the damaged row cost one claim.
    expect(lines).toEqual([unreadableLine(store, `webhook_deliveries/${delivery.id}`, 'scheduled_attempts is "x", not an integer')]);
  });
});
