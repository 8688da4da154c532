import { describe, expect, it } from "vitest";
import { VERIFY_FAILURES, WebhookVerificationError, isWebhookVerificationError, type VerifyFailure } from "./errors.js";
import { generateSecret } from "./secret.js";
import { sign } from "./sign.js";
import { verify, verifyOrThrow, type VerifyResult } from "./verify.js";

const body = JSON.stringify({ id: "evt_1", type: "product.created", data: { id: 1 } });
const at = new Date("2026-11-22T02:24:58.000Z");
const now = () => at;
const secret = generateSecret();
const signed = sign({ id: "msg_1", timestamp: at, body, secrets: secret });

function reasonOf(result: VerifyResult): VerifyFailure | "ok" {
  return result.ok ? "ok" : result.reason;
}

describe("verify", () => {
  it("accepts fetch Headers, Node-style records with any case, and array values", () => {
    expect(verify(body, new Headers(signed), secret, { now }).ok).toBe(true);
    const upper = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verify(body, upper, secret, { now }).ok).toBe(true);
    const arrays = { ...signed, "webhook-signature": [signed["webhook-signature"], "v1,bm90IGl0"] };
    expect(verify(body, arrays, secret, { now }).ok).toBe(true);
  });

  it.each([
    ["missing_headers", { "webhook-id": "msg_1", "webhook-timestamp": signed["webhook-timestamp"] }],
    ["missing_headers", { ...signed, "webhook-id": "  " }],
    ["invalid_timestamp", { ...signed, "webhook-timestamp": "2026-11-22" }],
    ["invalid_timestamp", { ...signed, "webhook-timestamp": "-5" }],
    ["invalid_signature_format", { ...signed, "webhook-signature": "sha256=abcdef" }],
    ["invalid_signature_format", { ...signed, "webhook-signature": "v1a,abcdef v2,xyz" }],
    ["no_matching_signature", { ...signed, "webhook-id": "msg_2" }],
    ["no_matching_signature", { ...signed, "webhook-signature": "v1,AAAA" }],
  ] as const)("rejects with %s", (reason, headers) => {
    const result = verify(body, headers, secret, { now });
    expect(reasonOf(result)).toBe(reason);
    if (!result.ok) expect(result.message.length).toBeGreaterThan(20);
  });

  it("rejects a changed body, and names the missing header", () => {
    expect(reasonOf(verify(`${body} `.replace("1}", "2}"), signed, secret, { now }))).toBe("no_matching_signature");
    const result = verify(body, { "webhook-id": "msg_1" }, secret, { now });
    expect(result.ok === false && result.message).toMatch(/webhook-timestamp, webhook-signature headers/);
  });

  it("rejects an empty or non-base64 secret as invalid_secret", () => {
    expect(reasonOf(verify(body, signed, "", { now }))).toBe("invalid_secret");
    expect(reasonOf(verify(body, signed, [], { now }))).toBe("invalid_secret");
    expect(reasonOf(verify(body, signed, "whsec_%%%", { now }))).toBe("invalid_secret");
  });

  it("enforces the tolerance window with an injected clock, both ways", () => {
    const at = (seconds: number) => () => new Date(now().getTime() + seconds * 1000);
    expect(verify(body, signed, secret, { now: at(300) }).ok).toBe(true);
    expect(verify(body, signed, secret, { now: at(-300) }).ok).toBe(true);
    expect(reasonOf(verify(body, signed, secret, { now: at(301) }))).toBe("timestamp_too_old");
    expect(reasonOf(verify(body, signed, secret, { now: at(-301) }))).toBe("timestamp_too_new");
    expect(verify(body, signed, secret, { now: at(301), toleranceSeconds: 600 }).ok).toBe(true);
    expect(reasonOf(verify(body, signed, secret, { now: at(11), toleranceSeconds: 10 }))).toBe("timestamp_too_old");
  });

  it("hints at milliseconds when the timestamp is far in the future", () => {
    const headers = { ...signed, "webhook-timestamp": String(at.getTime()) };
    const result = verify(body, headers, secret, { now });
    expect(result.ok === false && result.message).toMatch(/milliseconds/);
  });

  it("verifies with either secret of a rotation and reports which one matched", () => {
    const [next, previous] = [generateSecret(), generateSecret()];
    const both = sign({ id: "msg_1", timestamp: at, body, secrets: [next, previous] });
    expect(both["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verify(body, both, next, { now })).toMatchObject({ ok: true, secretIndex: 0 });
    expect(verify(body, both, previous, { now })).toMatchObject({ ok: true, secretIndex: 0 });
    const oldOnly = sign({ id: "msg_1", timestamp: at, body, secrets: previous });
    expect(verify(body, oldOnly, [next, previous], { now })).toMatchObject({ ok: true, secretIndex: 1 });
    expect(reasonOf(verify(body, both, generateSecret(), { now }))).toBe("no_matching_signature");
  });

  it("ignores entries of other versions next to a valid v1", () => {
    const headers = { ...signed, "webhook-signature": `v1a,c29tZQ== ${signed["webhook-signature"]}` };
    expect(verify(body, headers, secret, { now }).ok).toBe(true);
  });
});

describe("verifyOrThrow", () => {
  it("returns the success, and throws WebhookVerificationError with the reason", () => {
    expect(verifyOrThrow(body, signed, secret, { now }).id).toBe("msg_1");
    let caught: unknown;
    try {
      verifyOrThrow(body, signed, generateSecret(), { now });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebhookVerificationError);
    expect(isWebhookVerificationError(caught)).toBe(true);
    expect((caught as WebhookVerificationError).reason).toBe("no_matching_signature");
    expect((caught as Error).name).toBe("WebhookVerificationError");
  });

  it("lists every reason in the closed list", () => {
    expect([...VERIFY_FAILURES].sort()).toEqual(
      [
        "invalid_secret",
        "invalid_signature_format",
        "invalid_timestamp",
        "missing_headers",
        "no_matching_signature",
        "timestamp_too_new",
        "timestamp_too_old",
      ].sort(),
    );
  });
});
