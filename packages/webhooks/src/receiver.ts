import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createDeliveryLog } from "./internal/delivery-log.js";
import { createDeliveryHandler, type DeliveryHandler } from "./internal/receiver-handler.js";
import type { Receiver, ReceiverOptions } from "./receiver-types.js";

/**
 * Starts a webhook receiver on loopback for tests and for `lp listen`. It records every request raw
 * with its verification result, answers verification challenges, rejects bad signatures with a 400
 * that names the reason, replies to events with scripted statuses and delays, deduplicates events by
 * `webhook-id`, and lets a test `await receiver.expect({ type })` instead of polling.
 *
 * Without a secret, requests are recorded as unverified and still accepted, so a receiver can
 * answer the challenge of an endpoint whose secret it learns only afterwards (`setSecret`).
 *
 * @example
 * const receiver = await createReceiver({ secret, respond: [500, 200] });
 * // ...point a sender at receiver.url...
 * const [event] = await receiver.expect({ type: "product.created" });
 * await receiver.close();
 */
export async function createReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const host = options.host ?? "127.0.0.1";
  let secrets = toSecretList(options.secret);
  const log = createDeliveryLog();
  const sleeps = new Set<{ timer: ReturnType<typeof setTimeout>; cancel: () => void }>();
  const sleep = (ms: number) =>
    ms <= 0
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const entry = {
            timer: setTimeout(() => {
              sleeps.delete(entry);
              resolve();
            }, ms),
            cancel: () => reject(new Error("The webhook receiver closed during a delay.")),
          };
          sleeps.add(entry);
        });
  const handler = createDeliveryHandler(log, {
    respond: options.respond,
    delayMs: options.delayMs,
    toleranceSeconds: options.toleranceSeconds,
    secrets: () => secrets,
    now: options.now ?? (() => new Date()),
    sleep,
  });

  const sockets = new Set<Socket>();
  let closing: Promise<void> | undefined;
  const server = createServer((req, res) => void serve(handler, req, res, () => closing !== undefined));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    get deliveries() {
      return log.deliveries;
    },
    get events() {
      return log.events;
    },
    expect: (expectation) => log.expect(expectation),
    clear() {
      log.clear();
      handler.resetScript();
    },
    setSecret(secret) {
      secrets = toSecretList(secret);
    },
    on: (event, listener) => log.on(event, listener),
    close() {
      closing ??= new Promise<void>((resolve) => {
        log.close();
        for (const entry of sleeps) {
          clearTimeout(entry.timer);
          entry.cancel();
        }
        sleeps.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function toSecretList(secret: string | readonly string[] | undefined): readonly string[] | undefined {
  if (secret === undefined) return undefined;
  return typeof secret === "string" ? [secret] : [...secret];
}

/** Reads one request fully, lets the handler decide, and writes the reply unless the receiver closed. */
async function serve(handler: DeliveryHandler, req: IncomingMessage, res: ServerResponse, isClosing: () => boolean) {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    const reply = await handler.handle({
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers,
      body: Buffer.concat(chunks),
    });
    if (isClosing() || res.destroyed) return;
    res.writeHead(reply.status, reply.headers).end(reply.body);
  } catch (error) {
    if (isClosing() || res.destroyed || res.headersSent) return;
    const message = error instanceof Error ? error.message : String(error);
    const body = JSON.stringify({ error: "receiver_error", message });
    res.writeHead(500, { "content-type": "application/json" }).end(body);
  }
}
