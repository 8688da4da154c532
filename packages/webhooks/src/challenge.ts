/** The event type of an endpoint verification request. */
export const CHALLENGE_EVENT_TYPE = "webhook.verification";

/** A verification request body: `{ "type": "webhook.verification", "data": { "challenge": "<nonce>" } }`. */
export interface ChallengeEvent {
  type: typeof CHALLENGE_EVENT_TYPE;
  data: { challenge: string };
  [field: string]: unknown;
}

/** The reply that proves the endpoint controls the url: 200 with the nonce echoed as JSON. */
export interface ChallengeAnswer {
  status: 200;
  body: string;
  headers: { "content-type": "application/json" };
}

/**
 * True when `body` (raw JSON text or an already parsed value) is a verification challenge.
 * Non-JSON text, other event types and a missing, empty or non-string nonce are not challenges.
 */
export function isChallenge(body: unknown): boolean {
  return toChallenge(body) !== undefined;
}

/**
 * Answers a verification challenge, or returns `null` when `body` is not one. Verify the request's
 * signature first: the sender signs challenges like any other event.
 *
 * @example
 * const answer = answerChallenge(rawBody);
 * if (answer) return res.writeHead(answer.status, answer.headers).end(answer.body);
 */
export function answerChallenge(body: unknown): ChallengeAnswer | null {
  const challenge = toChallenge(body);
  if (!challenge) return null;
  return {
    status: 200,
    body: JSON.stringify({ challenge: challenge.data.challenge }),
    headers: { "content-type": "application/json" },
  };
}

function toChallenge(body: unknown): ChallengeEvent | undefined {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  } else if (body instanceof Uint8Array) {
    return toChallenge(Buffer.from(body).toString("utf8"));
  }
  if (typeof value !== "object" || value === null) return undefined;
  const event = value as { type?: unknown; data?: { challenge?: unknown } | null };
  if (event.type !== CHALLENGE_EVENT_TYPE) return undefined;
  if (typeof event.data !== "object" || event.data === null) return undefined;
  const nonce = event.data.challenge;
  return typeof nonce === "string" && nonce !== "" ? (event as ChallengeEvent) : undefined;
}
