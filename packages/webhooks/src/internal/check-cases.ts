import { randomBytes } from "node:crypto";
import type { CheckCaseId, CheckExpectation } from "../check-receiver-types.js";
import { CHALLENGE_EVENT_TYPE } from "../challenge.js";
import { generateSecret } from "../secret.js";
import { sign } from "../sign.js";

/** Ten minutes: twice the tolerance Standard Webhooks recommends, so any sound receiver refuses it. */
export const SKEW_SECONDS = 600;

/** One request, ready to send. */
export interface PreparedRequest {
  webhookId: string;
  timestamp: number;
  signature: string | null;
  eventType: string;
  attempt: number;
  body: string;
  /** The challenge's nonce, for the verdict. */
  nonce?: string;
}

/** A case: what it sends (each request built when it is sent, so its timestamp is fresh) and what it expects. */
export interface PlannedCase {
  id: CheckCaseId;
  title: string;
  expected: CheckExpectation;
  requests: Array<(nowSeconds: number) => PreparedRequest>;
}

/** What the plans are made from. */
export interface PlanInput {
  secret: string;
  previousSecret?: string;
  event: { type: string; data: unknown };
}

const randomId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** The cases of a check, in the order they are sent: must accept, must refuse, informative. */
export function planCases(input: PlanInput): PlannedCase[] {
  const { secret, event } = input;
  // A key nobody configured: the "other" secret of a forgery, and the newer secret of a rotation.
  const stranger = generateSecret();
  const envelope = (atSeconds: number) => ({
    id: randomId("evt"),
    type: event.type,
    timestamp: new Date(atSeconds * 1000).toISOString(),
    account_id: event.type === "webhook.test" ? null : "acct_sample",
    environment: "test",
    data: event.data,
  });
  /** A delivery as lp sends it: compact JSON, signed over those bytes; `change` alters what is sent. */
  const delivery = (options: { secrets?: string[]; skew?: number; change?: (signed: object) => string; id?: string; same?: { body?: string }; attempt?: number } = {}) =>
    (nowSeconds: number): PreparedRequest => {
      const timestamp = nowSeconds + (options.skew ?? 0);
      const webhookId = options.id ?? randomId("dlv");
      const value = envelope(timestamp);
      // Every attempt of one delivery carries the same bytes; only the timestamp and signature change.
      const signed = options.same ? (options.same.body ??= JSON.stringify(value)) : JSON.stringify(value);
      const headers = sign({ id: webhookId, timestamp, body: signed, secrets: options.secrets ?? [secret] });
      const body = options.change ? options.change(value) : signed;
      return { webhookId, timestamp, signature: headers["webhook-signature"], eventType: event.type, attempt: options.attempt ?? 1, body };
    };
  const withSignature = (make: (nowSeconds: number) => PreparedRequest, signature: (request: PreparedRequest) => string | null) =>
    (nowSeconds: number): PreparedRequest => {
      const request = make(nowSeconds);
      return { ...request, signature: signature(request) };
    };
  const duplicate = { id: randomId("dlv"), same: {} };

  const cases: PlannedCase[] = [
    { id: "valid", title: `a valid delivery of ${event.type}`, expected: "accept", requests: [delivery()] },
    {
      id: "rotation",
      title: "two signatures, as during a rotation: the first made with a secret the receiver does not hold, the second with the secret",
      expected: "accept",
      requests: [delivery({ secrets: [stranger, secret] })],
    },
  ];
  if (input.previousSecret) {
    cases.push({
      id: "previous-secret",
      title: "two signatures, the only matching one made with the previous secret",
      expected: "accept",
      requests: [delivery({ secrets: [stranger, input.previousSecret] })],
    });
  }
  cases.push(
    { id: "challenge", title: "lp's endpoint verification challenge (answer 200 echoing the nonce)", expected: "challenge", requests: [challenge(secret)] },
    {
      id: "tampered-body",
      title: "the body changed after signing (account_id rewritten)",
      expected: "refuse",
      requests: [delivery({ change: (value) => JSON.stringify({ ...value, account_id: "acct_attacker" }) })],
    },
    { id: "wrong-secret", title: "signed with another secret", expected: "refuse", requests: [delivery({ secrets: [stranger] })] },
    { id: "no-signature", title: "no webhook-signature header", expected: "refuse", requests: [withSignature(delivery(), () => null)] },
    {
      id: "malformed-signature",
      title: "a malformed webhook-signature (truncated, not base64)",
      expected: "refuse",
      requests: [withSignature(delivery(), (request) => `${request.signature!.slice(0, 23)}%%`)],
    },
    { id: "stale-timestamp", title: "signed 10 minutes ago (a replay)", expected: "refuse", requests: [delivery({ skew: -SKEW_SECONDS })] },
    { id: "future-timestamp", title: "signed 10 minutes in the future", expected: "refuse", requests: [delivery({ skew: SKEW_SECONDS })] },
    {
      id: "reserialized-json",
      title: "signed over compact JSON, sent indented: only a signature over the raw bytes fails",
      expected: "refuse",
      requests: [delivery({ change: (value) => JSON.stringify(value, null, 2) })],
    },
    {
      id: "duplicate-id",
      title: "the same delivery twice (same webhook-id, re-signed, as lp retries)",
      expected: "info",
      requests: [
        delivery(duplicate),
        delivery({ ...duplicate, attempt: 2 }),
      ],
    },
  );
  return cases;
}

/** lp's challenge, byte for byte as `lp serve` sends it: `{"type":"webhook.verification","data":{"challenge":…}}`. */
function challenge(secret: string) {
  return (nowSeconds: number): PreparedRequest => {
    const nonce = randomBytes(24).toString("base64url");
    const body = JSON.stringify({ type: CHALLENGE_EVENT_TYPE, data: { challenge: nonce } });
    const webhookId = randomId("evt");
    const headers = sign({ id: webhookId, timestamp: nowSeconds, body, secrets: secret });
    return { webhookId, timestamp: nowSeconds, signature: headers["webhook-signature"], eventType: CHALLENGE_EVENT_TYPE, attempt: 1, body, nonce };
  };
}
