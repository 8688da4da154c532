import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";

/**
 * Receivers written the way users write them, each verifying with an independent Standard Webhooks
 * library (`standardwebhooks` or `svix`), for the tests of `checkReceiver` and `lp check-receiver`:
 *
 * - `correct` / `correct-svix`: verify the raw body with the library, answer the challenge, 400 otherwise.
 * - `accept-all`: answers 200 to everything.
 * - `ignores-timestamp`: compares signatures computed by the library but never looks at the timestamp.
 * - `reserialized`: parses the JSON first and verifies `JSON.stringify(body)` (the express.json() bug).
 * - `crashes`: parses the signature header by hand and fails with a 500 on a missing or short one.
 * - `no-challenge`: like `correct`, but treats the challenge as any other event (200, no echo).
 * - `redirect`: answers 307 to another path. `silent`: never answers.
 */
export type ReceiverKind = "correct" | "correct-svix" | "accept-all" | "ignores-timestamp" | "reserialized" | "crashes" | "no-challenge" | "redirect" | "silent";

/** A request as the receiver got it. */
export interface Captured {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A running test receiver. */
export interface TestReceiver {
  url: string;
  requests: Captured[];
  close(): Promise<void>;
}

type Reply = { status: number; body?: string };

/** Starts a receiver of `kind` on a free loopback port; it verifies with each of `secrets` in turn. */
export async function startTestReceiver(kind: ReceiverKind, secrets: string | string[], options: { requireHeader?: [string, string] } = {}): Promise<TestReceiver> {
  const keys = Array.isArray(secrets) ? secrets : [secrets];
  const requests: Captured[] = [];
  const server = createServer(async (req, res) => {
    if (kind === "silent") return; // holds the socket until the client gives up
    const body = await readBody(req);
    let reply: Reply;
    try {
      const [name, value] = options.requireHeader ?? [];
      reply = name && req.headers[name] !== value ? { status: 401, body: "no auth" } : handle(kind, keys, req.headers, body);
    } catch (error) {
      // What a framework's default error handler does with an exception in a handler.
      reply = { status: 500, body: `Internal Server Error: ${(error as Error).message}` };
    }
    requests.push({ headers: req.headers, body, status: reply.status });
    send(res, reply, kind === "redirect" ? "/elsewhere" : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function handle(kind: ReceiverKind, secrets: string[], headers: IncomingHttpHeaders, body: string): Reply {
  switch (kind) {
    case "accept-all":
    case "redirect":
      return { status: kind === "redirect" ? 307 : 200 };
    case "correct":
    case "correct-svix":
    case "no-challenge": {
      const event = verifyWithLibrary(kind === "correct-svix" ? "svix" : "standardwebhooks", secrets, body, headers);
      if (!event) return { status: 400, body: "invalid signature" };
      return kind !== "no-challenge" && event.type === "webhook.verification" ? { status: 200, body: JSON.stringify({ challenge: event.data?.challenge }) } : { status: 204 };
    }
    case "ignores-timestamp": {
      const given = String(headers["webhook-signature"] ?? "").split(" ");
      const at = new Date(Number(headers["webhook-timestamp"]) * 1000);
      const id = String(headers["webhook-id"] ?? "");
      const ok = !Number.isNaN(at.getTime()) && secrets.some((secret) => given.includes(new StandardWebhook(secret).sign(id, at, body)));
      return ok ? answerChallengeOr(body, 200) : { status: 401 };
    }
    case "reserialized": {
      const parsed: unknown = JSON.parse(body);
      const event = verifyWithLibrary("standardwebhooks", secrets, JSON.stringify(parsed), headers);
      return event ? answerChallengeOr(body, 200) : { status: 400 };
    }
    case "crashes": {
      const header = headers["webhook-signature"] as string;
      const timestamp = Number(headers["webhook-timestamp"]);
      if (Math.abs(Date.now() / 1000 - timestamp) > 300) return { status: 400, body: "stale" };
      const entries = header.split(" ").map((entry) => Buffer.from(entry.split(",")[1], "base64"));
      const ok = secrets.some((secret) => {
        const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
        const expected = createHmac("sha256", key).update(`${headers["webhook-id"]}.${timestamp}.${body}`).digest();
        // The classic bug: timingSafeEqual throws when the lengths differ.
        return entries.some((entry) => timingSafeEqual(entry, expected));
      });
      return ok ? answerChallengeOr(body, 200) : { status: 401 };
    }
    default:
      return { status: 500 };
  }
}

/** Verifies with one of the reference libraries; the parsed event, or null. */
export function verifyWithLibrary(library: "standardwebhooks" | "svix", secrets: string[], body: string, headers: IncomingHttpHeaders): { type?: string; data?: { challenge?: string } } | null {
  const flat = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
  for (const secret of secrets) {
    try {
      if (library === "standardwebhooks") return new StandardWebhook(secret).verify(body, flat) as { type?: string };
      // svix 2's verify returns nothing (it throws on a bad signature): the event is the body it accepted.
      new SvixWebhook(secret).verify(body, flat);
      return JSON.parse(body) as { type?: string };
    } catch {
      // The next secret, or refused.
    }
  }
  return null;
}

function answerChallengeOr(body: string, status: number): Reply {
  const event = JSON.parse(body) as { type?: string; data?: { challenge?: string } };
  return event.type === "webhook.verification" ? { status: 200, body: event.data?.challenge ?? "" } : { status };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, reply: Reply, location?: string): void {
  const headers: Record<string, string> = { "content-type": "text/plain" };
  if (location) headers.location = location;
  res.writeHead(reply.status, headers).end(reply.body ?? "");
}
