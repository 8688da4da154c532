import { describe, expect, it } from "vitest";
import { generateSecret } from "../secret.js";
import { sign } from "../sign.js";
import { createDeliveryLog } from "./delivery-log.js";
import { createDeliveryHandler, type HandlerConfig, type IncomingRequest } from "./receiver-handler.js";

// The same decisions as receiver.test.ts, without a socket: the handler is plain functions over a log.
const at = new Date("2026-11-22T02:24:58.000Z");
const secret = generateSecret();

function setup(config: Partial<HandlerConfig> = {}) {
  const log = createDeliveryLog();
  const sleeps: number[] = [];
  const handler = createDeliveryHandler(log, {
    secrets: () => [secret],
    now: () => at,
    sleep: async (ms) => void sleeps.push(ms),
    ...config,
  });
  return { log, handler, sleeps };
}

function request(id: string, body: string, key: string = secret): IncomingRequest {
  const headers: Record<string, string> = { ...sign({ id, timestamp: at, body, secrets: key }) };
  return { method: "POST", path: "/", headers, body: Buffer.from(body) };
}

const event = (type: string, id = "evt_1") => JSON.stringify({ id, type });

describe("createDeliveryHandler", () => {
  it("answers a challenge, rejects a bad signature, and scripts the rest", async () => {
    const { handler, log } = setup({ respond: [500, 200] });
    const challenge = JSON.stringify({ type: "webhook.verification", data: { challenge: "n" } });
    expect(await handler.handle(request("m0", challenge))).toMatchObject({ status: 200, body: '{"challenge":"n"}' });
    expect(await handler.handle(request("m1", event("x"), generateSecret()))).toMatchObject({ status: 400 });
    expect((await handler.handle(request("m2", event("x")))).status).toBe(500);
    expect((await handler.handle(request("m2", event("x")))).status).toBe(200);
    expect((await handler.handle(request("m3", event("x", "evt_3")))).status).toBe(200);
    expect(log.deliveries).toHaveLength(5);
    expect(log.events.map((e) => e.type)).toEqual(["webhook.verification", "x", "x"]);
  });

  it("sleeps delayMs through the injected sleep, only for scripted replies", async () => {
    const { handler, sleeps } = setup({ delayMs: 1500 });
    await handler.handle(request("m1", event("x")));
    await handler.handle(request("m2", event("x"), generateSecret()));
    expect(sleeps).toEqual([1500]);
  });

  it("turns a throwing respond function into a 500 that says why", async () => {
    const { handler, log } = setup({
      respond: () => {
        throw new Error("test bug");
      },
    });
    const reply = await handler.handle(request("m1", event("x")));
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.body)).toEqual({ error: "receiver_error", message: "test bug" });
    expect(log.deliveries[0].response?.status).toBe(500);
  });

  it("resolves expect() as soon as the handler records the event", async () => {
    const { handler, log } = setup();
    const waiting = log.expect({ type: "page.created", count: 2, within: 60_000 });
    await handler.handle(request("m1", event("page.created", "evt_1")));
    await handler.handle(request("m2", event("page.created", "evt_2")));
    await expect(waiting).resolves.toHaveLength(2);
  });
});
