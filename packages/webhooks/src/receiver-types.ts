import type { VerifyResult } from "./verify.js";

/** A webhook event body as the lp service sends it. Other fields are kept as they arrived. */
export interface WebhookEvent {
  id?: string;
  type: string;
  timestamp?: string;
  account_id?: string;
  environment?: string;
  data?: unknown;
  [field: string]: unknown;
}

/** What the receiver answers to one request. */
export interface ReceiverReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * One request the receiver got, recorded raw, whether or not it verified. Every attempt of a
 * delivery is its own record; `webhookId` ties the retries together.
 */
export interface Delivery {
  /** Order of arrival, from 1 (reset by `clear()`). */
  seq: number;
  method: string;
  /** Path and query string as requested. */
  path: string;
  /** Request headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The raw body, decoded as UTF-8. */
  body: string;
  receivedAt: Date;
  /** `webhook-id`: the same on every retry of one message. */
  webhookId?: string;
  /** `webhook-event-type` (unsigned, informational). */
  eventType?: string;
  /** `webhook-attempt` (unsigned, informational). */
  attempt?: number;
  /** Outcome of signature verification; `undefined` when no secret was configured (unverified). */
  verification?: VerifyResult;
  /** True only when a configured secret verified the signature. */
  verified: boolean;
  /** The parsed body, when it is a JSON object with a string `type`. */
  event?: WebhookEvent;
  /** True for a `webhook.verification` challenge. */
  challenge: boolean;
  /** True when the event of an earlier attempt with the same id was already recorded (set once answered). */
  duplicate: boolean;
  /** What the receiver answered; `undefined` while the reply is pending (for example during `delayMs`). */
  response?: Required<ReceiverReply>;
}

/**
 * Decides the reply to an accepted (verified, or unverified because no secret is set) event.
 * `index` counts such replies from 0. Return a status or a full reply.
 */
export type RespondFunction = (
  delivery: Delivery,
  index: number,
) => number | ReceiverReply | Promise<number | ReceiverReply>;

/** Options of `createReceiver`. */
export interface ReceiverOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** Secret(s) to verify with, newest first. Without one, requests are recorded as unverified. */
  secret?: string | readonly string[];
  /**
   * Statuses for accepted events, in order; after the last, the last repeats. Default 200.
   * Challenges and rejected signatures are answered on their own terms and do not use the script.
   */
  respond?: number | readonly number[] | RespondFunction;
  /** Delay (ms) before answering an accepted event, or a function of the delivery. Default 0. */
  delayMs?: number | ((delivery: Delivery) => number);
  /** Verification tolerance in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Clock for `receivedAt` and verification. Default: the system clock. */
  now?: () => Date;
}

/** Arguments of `Receiver.expect`. */
export interface ExpectOptions {
  /** The event `type` to wait for. */
  type: string;
  /** Distinct events (by `webhook-id`) required. Default 1. */
  count?: number;
  /** Milliseconds to wait before rejecting. Default 5000. */
  within?: number;
}

/** `request` fires when a request has been read; `delivery` once it has been answered. */
export type ReceiverEventName = "request" | "delivery";

/** A running webhook receiver; see `createReceiver`. */
export interface Receiver {
  /** Base url, e.g. `http://127.0.0.1:43123`; any path under it is accepted. */
  readonly url: string;
  readonly port: number;
  /** Every request, every attempt, in order of arrival. */
  readonly deliveries: readonly Delivery[];
  /** Distinct events (deduplicated by `webhook-id`) of accepted requests, in order of answer. */
  readonly events: readonly WebhookEvent[];
  /** Resolves with the matching events once `count` distinct events of `type` are in; rejects at `within`. */
  expect(options: ExpectOptions): Promise<WebhookEvent[]>;
  /** Forgets deliveries, events and seen ids, and restarts the `respond` script. */
  clear(): void;
  /** Replaces the secret(s) used from the next request on; `undefined` stops verifying. */
  setSecret(secret: string | readonly string[] | undefined): void;
  /** Subscribes to a receiver event; returns the unsubscribe function. */
  on(event: ReceiverEventName, listener: (delivery: Delivery) => void): () => void;
  /** Stops listening, drops open connections and rejects pending `expect` calls. Idempotent. */
  close(): Promise<void>;
}
