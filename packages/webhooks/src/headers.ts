/**
 * Header names a sender uses. The first three are covered by the signature (the id and timestamp are
 * part of the signed content); `eventType` and `attempt` are informational and unsigned.
 */
export const WEBHOOK_HEADERS = Object.freeze({
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
  eventType: "webhook-event-type",
  attempt: "webhook-attempt",
} as const);

/**
 * The signed headers `sign` produces, ready to spread into a request's headers. A type alias, not an
 * interface, so that it is assignable to `HeadersInit` and `Record<string, string>`.
 */
export type SignedHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/**
 * Request headers as the common runtimes hand them over: a fetch `Headers`, Node's
 * `IncomingHttpHeaders`, or a plain object. Names are matched case-insensitively.
 */
export type HeadersInput = Headers | Record<string, string | string[] | undefined>;
