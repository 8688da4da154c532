import { answerChallenge, isChallenge } from "../challenge.js";
import { WEBHOOK_HEADERS } from "../headers.js";
import type { Delivery, ReceiverOptions, ReceiverReply, WebhookEvent } from "../receiver-types.js";
import { verify } from "../verify.js";
import type { DeliveryLog } from "./delivery-log.js";

/** A request as read off the socket. */
export interface IncomingRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the handler needs besides the log; `sleep` is injected so that `close()` can cancel it. */
export interface HandlerConfig extends Pick<ReceiverOptions, "respond" | "delayMs" | "toleranceSeconds"> {
  secrets: () => readonly string[] | undefined;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
}

/** The receiver's decisions, free of sockets: record, verify, then challenge, reject or script. */
export interface DeliveryHandler {
  handle(request: IncomingRequest): Promise<Required<ReceiverReply>>;
  /** Restarts the `respond` script from its first status. */
  resetScript(): void;
}

const JSON_HEADERS = { "content-type": "application/json" };

/** Creates the request handler of a receiver over `log`. */
export function createDeliveryHandler(log: DeliveryLog, config: HandlerConfig): DeliveryHandler {
  const script = toScript(config.respond);
  let scripted = 0;

  async function decide(delivery: Delivery, raw: Buffer): Promise<Required<ReceiverReply>> {
    const { verification } = delivery;
    if (verification && !verification.ok) {
      return reply(400, { error: verification.reason, message: verification.message });
    }
    const answer = delivery.challenge ? answerChallenge(raw.toString("utf8")) : null;
    if (answer) return { ...answer, headers: { ...answer.headers } };
    const index = scripted++;
    let result: ReceiverReply;
    try {
      const planned = await script(delivery, index);
      result = typeof planned === "number" ? { status: planned } : planned;
      assertStatus(result.status);
    } catch (error) {
      // A broken `respond` function is the test's bug; say so to the sender rather than hang up.
      return reply(500, { error: "receiver_error", message: error instanceof Error ? error.message : String(error) });
    }
    const delay = typeof config.delayMs === "function" ? config.delayMs(delivery) : (config.delayMs ?? 0);
    await config.sleep(delay);
    return {
      status: result.status,
      headers: result.headers ?? JSON_HEADERS,
      body: result.body ?? defaultBody(result.status, index),
    };
  }

  return {
    async handle(request) {
      const secrets = config.secrets();
      const header = (name: string) => request.headers[name];
      const attempt = Number(header(WEBHOOK_HEADERS.attempt));
      const delivery: Delivery = {
        seq: log.nextSeq(),
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body.toString("utf8"),
        receivedAt: config.now(),
        webhookId: header(WEBHOOK_HEADERS.id),
        eventType: header(WEBHOOK_HEADERS.eventType),
        attempt: Number.isInteger(attempt) && header(WEBHOOK_HEADERS.attempt) ? attempt : undefined,
        verification: secrets
          ? verify(request.body, request.headers, secrets, {
              toleranceSeconds: config.toleranceSeconds,
              now: config.now,
            })
          : undefined,
        verified: false,
        event: undefined,
        challenge: false,
        duplicate: false,
      };
      delivery.verified = delivery.verification?.ok === true;
      delivery.event = toEvent(delivery.body);
      delivery.challenge = isChallenge(delivery.event);
      log.add(delivery);
      const response = await decide(delivery, request.body);
      delivery.response = response;
      log.settle(delivery);
      return response;
    },
    resetScript() {
      scripted = 0;
    },
  };
}

function toScript(respond: ReceiverOptions["respond"]) {
  if (typeof respond === "function") return respond;
  const statuses = respond === undefined ? [200] : typeof respond === "number" ? [respond] : [...respond];
  if (statuses.length === 0) statuses.push(200);
  statuses.forEach(assertStatus);
  return (_delivery: Delivery, index: number) => statuses[Math.min(index, statuses.length - 1)];
}

function assertStatus(status: number): void {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(`Receiver reply status must be an integer from 200 to 599, got ${status}.`);
  }
}

function defaultBody(status: number, index: number): string {
  if (status >= 200 && status < 300) return JSON.stringify({ received: true });
  return JSON.stringify({ error: "scripted_status", message: `Replying ${status} as scripted (reply #${index + 1}).` });
}

function reply(status: number, body: unknown): Required<ReceiverReply> {
  return { status, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}

function toEvent(body: string): WebhookEvent | undefined {
  try {
    const value: unknown = JSON.parse(body);
    const isEvent =
      typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
    return isEvent ? (value as WebhookEvent) : undefined;
  } catch {
    return undefined;
  }
}
