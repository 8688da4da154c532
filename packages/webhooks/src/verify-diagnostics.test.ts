import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateSecret } from "./secret.js";
import { sign } from "./sign.js";
import { verify, type VerifyResult } from "./verify.js";

const at = new Date("2026-11-22T02:24:58.000Z");
const now = () => at;
const secret = generateSecret();
const event = { id: "evt_1", type: "product.created", data: { name: "Lamp", price: 12 } };
const body = JSON.stringify(event);
const signed = sign({ id: "msg_1", timestamp: at, body, secrets: secret });

function messageOf(result: VerifyResult): string {
  expect(result.ok).toBe(false);
  if (result.ok) return "";
  expect(result.reason).toBe("no_matching_signature");
  return result.message;
}

describe("no_matching_signature diagnostics", () => {
  it("proves re-serialisation when the compact form of the payload matches", () => {
    const pretty = JSON.stringify(event, null, 2);
    expect(messageOf(verify(pretty, signed, secret, { now }))).toMatch(
      /re-serialised: JSON\.stringify\(JSON\.parse\(body\)\) matches/,
    );
  });

  it("suspects re-serialisation when the payload is JSON but not in its compact form", () => {
    const reordered = `{ "type": "product.created", "id": "evt_1", "data": {} }`;
    expect(messageOf(verify(reordered, signed, secret, { now }))).toMatch(/probably re-serialised/);
  });

  it("reminds to pass the raw body when the payload is compact JSON that still does not match", () => {
    const other = JSON.stringify({ ...event, id: "evt_2" });
    expect(messageOf(verify(other, signed, secret, { now }))).toMatch(/raw body/);
  });

  it("spots a trailing newline added to the body", () => {
    const plain = sign({ id: "m", timestamp: at, body: "plain text", secrets: secret });
    expect(messageOf(verify("plain text\n", plain, secret, { now }))).toMatch(/trailing whitespace or a newline/);
  });

  it("names whitespace around the secret, and proves the trimmed one matches", () => {
    for (const padded of [` ${secret}`, `${secret}\n`, `\t${secret} `]) {
      const message = messageOf(verify(body, signed, padded, { now }));
      expect(message).toMatch(/whitespace; with that fixed it matches/);
    }
  });

  it("names a duplicated whsec_ prefix", () => {
    expect(messageOf(verify(body, signed, `whsec_${secret}`, { now }))).toMatch(/duplicates the whsec_ prefix/);
  });

  it("names a secret lacking the prefix when nothing else explains the mismatch", () => {
    const other = generateSecret().slice("whsec_".length);
    expect(messageOf(verify(body, signed, other, { now }))).toMatch(/lacks the "whsec_" prefix/);
  });

  it("detects a sender that used the secret text as the HMAC key", () => {
    const timestamp = Math.floor(at.getTime() / 1000);
    const wrong = createHmac("sha256", secret).update(`msg_1.${timestamp}.${body}`).digest("base64");
    const headers = { ...signed, "webhook-signature": `v1,${wrong}` };
    expect(messageOf(verify(body, headers, secret, { now }))).toMatch(/text of the secret as the HMAC key/);
  });

  it("mentions a stale timestamp inside a wide tolerance", () => {
    const old = sign({ id: "msg_1", timestamp: new Date(at.getTime() - 600_000), body, secrets: generateSecret() });
    const message = messageOf(verify(body, old, secret, { now, toleranceSeconds: 3600 }));
    expect(message).toMatch(/webhook-timestamp is 600 s old/);
  });

  it("falls back to a wrong or rotated secret when no cause is visible", () => {
    const other = sign({ id: "msg_1", timestamp: at, body: "x", secrets: generateSecret() });
    expect(messageOf(verify("x", other, secret, { now }))).toMatch(/another endpoint or be out of date/);
  });
});
