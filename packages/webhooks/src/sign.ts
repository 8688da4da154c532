import type { SignedHeaders } from "./headers.js";
import { toSigningKey } from "./internal/secret-key.js";
import { computeSignature, formatSignature } from "./internal/signature.js";

/** Input of {@link sign}. */
export interface SignInput {
  /** The message id: the same on every retry of one delivery, so receivers can dedupe. */
  id: string;
  /** When this attempt is sent: a `Date` or unix seconds (fractions are dropped). */
  timestamp: Date | number;
  /** The exact body that will be sent. Sign after serialising, and send these same bytes. */
  body: string | Uint8Array;
  /**
   * One secret, or several newest first (during a rotation). Each yields one `v1,` entry in the
   * same order, so a receiver holding either the old or the new secret verifies the request.
   */
  secrets: string | readonly string[];
}

/**
 * Signs one attempt of a webhook the Standard Webhooks way and returns the three signed headers.
 * Throws a `TypeError` for an empty id, a bad timestamp, no secret, or a malformed secret: a
 * sender should never put a signature it cannot stand behind on the wire.
 *
 * @example
 * const headers = sign({ id: "msg_1", timestamp: new Date(), body, secrets: secret });
 * await fetch(url, { method: "POST", body, headers: { ...headers, "content-type": "application/json" } });
 */
export function sign(input: SignInput): SignedHeaders {
  const { id, body } = input;
  if (typeof id !== "string" || id === "") throw new TypeError("Cannot sign: id must be a non-empty string.");
  const timestamp = toUnixSeconds(input.timestamp);
  const { secrets } = input;
  const list = typeof secrets === "string" ? null : secrets;
  if (list !== null && list.length === 0) throw new TypeError("Cannot sign: at least one secret is required.");
  // The common case, one secret, builds no list of signatures: a sender signs every attempt.
  let signature = formatSignature(computeSignature(toSigningKey(list === null ? (secrets as string) : list[0], 0), id, timestamp, body));
  for (let index = 1; list !== null && index < list.length; index++) {
    signature += ` ${formatSignature(computeSignature(toSigningKey(list[index], index), id, timestamp, body))}`;
  }
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature,
  };
}

function toUnixSeconds(timestamp: Date | number): number {
  const seconds = timestamp instanceof Date ? timestamp.getTime() / 1000 : timestamp;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
    throw new TypeError("Cannot sign: timestamp must be a valid Date or non-negative unix seconds.");
  }
  return Math.floor(seconds);
}
