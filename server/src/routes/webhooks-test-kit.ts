import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createReceiver, type Delivery, type Receiver, type ReceiverOptions } from "@lp/webhooks";
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";
import { createTestApp, type TestAppOptions } from "../testing/test-app.js";

const ENDPOINTS = "/v1/developer/webhook-endpoints";

/**
 * A test app plus what webhook tests need: the dev application's Basic credentials, loopback
 * receivers on the frozen clock, and `settle()`, which waits until the engine has nothing running.
 */
export async function createWebhookTestApp(options: TestAppOptions = {}) {
  // The engine's own timeouts: a receiver that answers is never cut short by a loaded machine. A test of the
  // timeout itself gives a short one in `options`.
  const t = await createTestApp(options);
  const receivers: Receiver[] = [];
  const servers: { close(): Promise<void> }[] = [];
  const basicOf = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
  const devAuth = basicOf(t.creds.application_id, t.creds.client_secret);

  /** A developer-plane request; `auth` defaults to the dev application. */
  const dev = (method: string, path = "", body?: unknown, auth = devAuth) =>
    t.call(method, `${ENDPOINTS}${path}`, { body, token: null, headers: { authorization: auth } });

  return {
    ...t,
    devAuth,
    basicOf,
    dev,
    settle: () => t.core.onIdle(),
    /** Moves the clock (and due retries) forward, letting the engine finish after each timer. */
    advance: (ms: number) => t.scheduler.advanceAsync(ms, () => t.core.onIdle()),
    async receiver(opts: ReceiverOptions = {}) {
      const receiver = await createReceiver({ now: () => t.clock.now(), ...opts });
      receivers.push(receiver);
      return receiver;
    },
    /** A bare HTTP server for replies the receiver never gives (wrong echo, redirects, silence). */
    async server(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
      const sockets = new Set<Socket>();
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
      });
      server.on("connection", (s) => (sockets.add(s), s.once("close", () => sockets.delete(s))));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const handle = {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((resolve) => (server.close(() => resolve()), sockets.forEach((s) => s.destroy()))),
      };
      servers.push(handle);
      return handle;
    },
    /** Creates an endpoint for `receiver` and gives the receiver its secret; returns the 201 body's data. */
    async endpoint(receiver: Receiver, body: Record<string, unknown> = {}, auth = devAuth) {
      const res = await dev("POST", "", { url: `${receiver.url}/hooks`, events: ["product.created"], ...body }, auth);
      if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${res.text}`);
      receiver.setSecret(res.json.data.secret);
      return res.json.data;
    },
    /** Makes a product on the dev account (emits product.created). */
    async product(title = "Lamp", token?: string, account = t.account) {
      const res = await t.call("POST", `${account}/products`, { body: { title, price: 10, product_type: "physical" }, token });
      if (res.status !== 201) throw new Error(`create product: ${res.status} ${res.text}`);
      return res.json.data;
    },
    async close() {
      await t.close();
      await Promise.all([...receivers.map((r) => r.close()), ...servers.map((s) => s.close())]);
    },
  };
}

export type WebhookTestApp = Awaited<ReturnType<typeof createWebhookTestApp>>;

/** Non-challenge requests a receiver got. */
export const eventsOf = (receiver: Receiver): Delivery[] => receiver.deliveries.filter((d) => !d.challenge);

/**
 * Verifies a recorded request with the `standardwebhooks` reference library, at the time the request
 * was signed (the reference library reads `Date.now()`, so only Date is faked, and only here).
 */
export function verifyWithReference(secret: string, delivery: Delivery): unknown {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Number(delivery.headers["webhook-timestamp"]) * 1000);
  try {
    return new Webhook(secret).verify(delivery.body, delivery.headers);
  } finally {
    vi.useRealTimers();
  }
}
