import { afterEach, describe, expect, it } from "vitest";
import { createReceiver } from "./receiver.js";
import type { Delivery, Receiver, ReceiverOptions } from "./receiver-types.js";
import { generateSecret } from "./secret.js";
import { sign } from "./sign.js";

// The receiver's clock is frozen and requests are signed at that instant: no test depends on time.
const at = new Date("2026-11-22T02:24:58.000Z");
const secret = generateSecret();
const open: Receiver[] = [];

async function start(options: ReceiverOptions = {}): Promise<Receiver> {
  const receiver = await createReceiver({ now: () => at, ...options });
  open.push(receiver);
  return receiver;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((receiver) => receiver.close()));
});

interface Send {
  id?: string;
  type?: string;
  body?: string;
  secret?: string | null;
  attempt?: number;
  signal?: AbortSignal;
}

let counter = 0;
function send(receiver: Receiver, { id, type = "product.created", body, signal, attempt = 1, ...rest }: Send = {}) {
  const webhookId = id ?? `msg_${++counter}`;
  const payload = body ?? JSON.stringify({ id: `evt_${webhookId}`, type, data: { n: counter } });
  const key = rest.secret === undefined ? secret : rest.secret;
  const signed = key ? sign({ id: webhookId, timestamp: at, body: payload, secrets: key }) : {};
  return fetch(`${receiver.url}/hooks?source=test`, {
    method: "POST",
    body: payload,
    signal,
    headers: {
      "content-type": "application/json",
      "webhook-event-type": type,
      "webhook-attempt": String(attempt),
      ...signed,
    },
  });
}

const challengeBody = JSON.stringify({ type: "webhook.verification", data: { challenge: "nonce_123" } });

describe("createReceiver", () => {
  it("listens on loopback, records each request raw with its verification", async () => {
    const receiver = await start({ secret });
    expect(receiver.url).toBe(`http://127.0.0.1:${receiver.port}`);
    const body = '{ "id": "evt_x",  "type": "product.created" }';
    const response = await send(receiver, { id: "msg_raw", body, attempt: 3 });
    expect(response.status).toBe(200);
    const [delivery] = receiver.deliveries;
    expect(delivery).toMatchObject({
      seq: 1,
      method: "POST",
      path: "/hooks?source=test",
      body,
      receivedAt: at,
      webhookId: "msg_raw",
      eventType: "product.created",
      attempt: 3,
      verified: true,
      verification: { ok: true, id: "msg_raw", secretIndex: 0 },
      challenge: false,
      duplicate: false,
      response: { status: 200 },
    });
    expect(delivery.headers["webhook-signature"]).toMatch(/^v1,/);
    expect(receiver.events).toEqual([{ id: "evt_x", type: "product.created" }]);
  });

  it("answers a signed verification challenge by echoing the nonce", async () => {
    const receiver = await start({ secret, respond: 500 });
    const response = await send(receiver, { body: challengeBody, type: "webhook.verification" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ challenge: "nonce_123" });
    expect(receiver.deliveries[0]).toMatchObject({ challenge: true, verified: true });
  });

  it("answers a challenge before it knows the secret, then verifies once told", async () => {
    const receiver = await start();
    const response = await send(receiver, { body: challengeBody, secret: null });
    expect(await response.json()).toEqual({ challenge: "nonce_123" });
    expect(receiver.deliveries[0]).toMatchObject({ verified: false, verification: undefined });

    receiver.setSecret(secret);
    expect((await send(receiver)).status).toBe(200);
    expect((await send(receiver, { secret: generateSecret() })).status).toBe(400);
  });

  it("rejects a bad signature with 400 naming the reason, and keeps it out of events", async () => {
    const receiver = await start({ secret });
    const wrong = await send(receiver, { secret: generateSecret() });
    expect(wrong.status).toBe(400);
    const body = await wrong.json();
    expect(body.error).toBe("no_matching_signature");
    expect(body.message).toMatch(/No signature matched/);

    const unsigned = await send(receiver, { secret: null });
    expect((await unsigned.json()).error).toBe("missing_headers");
    const challenge = await send(receiver, { body: challengeBody, secret: generateSecret() });
    expect(challenge.status).toBe(400);

    expect(receiver.deliveries.map((d) => d.verification?.ok === false && d.verification.reason)).toEqual([
      "no_matching_signature",
      "missing_headers",
      "no_matching_signature",
    ]);
    expect(receiver.events).toEqual([]);
  });

  it("replies with scripted statuses, repeats the last, and dedupes retries by webhook-id", async () => {
    const receiver = await start({ secret, respond: [500, 503, 200] });
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      statuses.push((await send(receiver, { id: "msg_retry", attempt })).status);
    }
    statuses.push((await send(receiver, { id: "msg_other" })).status);
    expect(statuses).toEqual([500, 503, 200, 200, 200]);
    expect(receiver.deliveries).toHaveLength(5);
    expect(receiver.deliveries.map((d) => d.duplicate)).toEqual([false, true, true, true, false]);
    expect(receiver.events.map((event) => event.id)).toEqual(["evt_msg_retry", "evt_msg_other"]);
    const failed = receiver.deliveries[0].response;
    expect(JSON.parse(failed?.body ?? "")).toMatchObject({ error: "scripted_status" });
  });

  it("accepts a respond function with the delivery and the reply index", async () => {
    const seen: Array<[string | undefined, number]> = [];
    const receiver = await start({
      secret,
      respond: (delivery, index) => {
        seen.push([delivery.webhookId, index]);
        return index === 0 ? { status: 410, body: "gone", headers: { "content-type": "text/plain" } } : 204;
      },
    });
    const first = await send(receiver, { id: "msg_a" });
    expect([first.status, await first.text()]).toEqual([410, "gone"]);
    expect((await send(receiver, { id: "msg_b" })).status).toBe(204);
    expect(seen).toEqual([
      ["msg_a", 0],
      ["msg_b", 1],
    ]);
  });

  it("holds the reply for delayMs: recorded at once, answered only after the delay", async () => {
    const receiver = await start({ secret, delayMs: 60_000 });
    const answered: Delivery[] = [];
    receiver.on("delivery", (delivery) => answered.push(delivery));
    const arrived = new Promise<Delivery>((resolve) => receiver.on("request", resolve));
    const controller = new AbortController();
    const pending = send(receiver, { signal: controller.signal });
    const delivery = await arrived;
    expect(delivery.response).toBeUndefined();
    expect(answered).toEqual([]);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await receiver.close();
    expect(delivery.response).toBeUndefined();
  });

  it("answers once a short delay has passed, with delayMs as a function", async () => {
    const delays: string[] = [];
    const receiver = await start({
      secret,
      delayMs: (delivery) => (delays.push(delivery.webhookId ?? ""), 20),
    });
    const response = await send(receiver, { id: "msg_slow" });
    expect(response.status).toBe(200);
    expect(delays).toEqual(["msg_slow"]);
    expect(receiver.deliveries[0].response?.status).toBe(200);
  });
});

describe("Receiver.expect", () => {
  it("resolves from the request handler once count distinct events have arrived", async () => {
    const receiver = await start({ secret, respond: [500, 200] });
    const waiting = receiver.expect({ type: "page.created", count: 2, within: 10_000 });
    await send(receiver, { id: "msg_1", type: "page.created" });
    await send(receiver, { id: "msg_1", type: "page.created" });
    await send(receiver, { id: "msg_2", type: "product.created" });
    await send(receiver, { id: "msg_3", type: "page.created" });
    const events = await waiting;
    expect(events.map((event) => event.id)).toEqual(["evt_msg_1", "evt_msg_3"]);
    await expect(receiver.expect({ type: "product.created" })).resolves.toHaveLength(1);
  });

  it("rejects at `within`, summarising what did arrive", async () => {
    const receiver = await start({ secret });
    await send(receiver, { type: "product.created" });
    await send(receiver, { type: "page.created", secret: generateSecret() });
    const missed = receiver.expect({ type: "page.created", count: 1, within: 50 });
    await expect(missed).rejects.toThrow(
      /Expected 1 "page.created" event within 50 ms, got 0\. Received 2 requests; events: product\.created ×1; 1 rejected \(no_matching_signature\)/,
    );
  });

  it("rejects pending expectations on close, and close is idempotent", async () => {
    const receiver = await start({ secret });
    const waiting = receiver.expect({ type: "page.created", within: 60_000 });
    await Promise.all([receiver.close(), receiver.close()]);
    await expect(waiting).rejects.toThrow(/closed while waiting for "page.created"/);
    await expect(receiver.expect({ type: "page.created" })).rejects.toThrow(/closed/);
    await expect(send(receiver)).rejects.toThrow();
  });

  it("clear() forgets deliveries, events and seen ids, and restarts the script", async () => {
    const receiver = await start({ secret, respond: [500, 200] });
    expect((await send(receiver, { id: "msg_1" })).status).toBe(500);
    receiver.clear();
    expect(receiver.deliveries).toEqual([]);
    expect(receiver.events).toEqual([]);
    expect((await send(receiver, { id: "msg_1" })).status).toBe(500);
    expect(receiver.events).toHaveLength(1);
    expect(receiver.deliveries[0].seq).toBe(1);
  });
});

describe("createReceiver options", () => {
  it("refuses a respond status outside 200..599", async () => {
    await expect(createReceiver({ respond: [200, 99] })).rejects.toThrow(/200 to 599/);
  });

  it("records unverified requests when no secret is set, and lets them count as events", async () => {
    const receiver = await start();
    await send(receiver, { secret: null, type: "webhook.test" });
    expect(receiver.deliveries[0]).toMatchObject({ verified: false, verification: undefined });
    await expect(receiver.expect({ type: "webhook.test", within: 1000 })).resolves.toHaveLength(1);
  });
});
