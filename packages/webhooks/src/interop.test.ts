import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateSecret } from "./secret.js";
import { sign } from "./sign.js";
import { verify } from "./verify.js";

// The reference library checks timestamps against the real clock, so these tests sign "now".
const body = JSON.stringify({ id: "evt_1", type: "page.created", data: { title: "Ünïcödé ✓" } });

describe("interoperability with the standardwebhooks package", () => {
  it("verifies what the reference library signs", () => {
    const secret = generateSecret();
    const at = new Date();
    const signature = new Webhook(secret).sign("msg_ref", at, body);
    const headers = {
      "webhook-id": "msg_ref",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    };
    expect(verify(body, headers, secret, { now: () => at })).toMatchObject({ ok: true, id: "msg_ref" });
    expect(verify(Buffer.from(body), headers, secret, { now: () => at }).ok).toBe(true);
  });

  it("is verified by the reference library, also with two signatures", () => {
    const [next, previous] = [generateSecret(), generateSecret()];
    const headers = sign({ id: "msg_ours", timestamp: new Date(), body, secrets: [next, previous] });
    expect(new Webhook(next).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, { ...headers })).toThrow(/No matching signature/);
  });

  it("derives the same key from a secret with or without the whsec_ prefix", () => {
    const secret = generateSecret();
    const bare = secret.slice("whsec_".length);
    const headers = sign({ id: "msg_bare", timestamp: new Date(), body, secrets: bare });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    const at = new Date();
    const theirs = {
      "webhook-id": "msg_bare",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(bare).sign("msg_bare", at, body),
    };
    expect(verify(body, theirs, secret, { now: () => at }).ok).toBe(true);
  });

  it("agrees with the reference library on a tampered body", () => {
    const secret = generateSecret();
    const headers = sign({ id: "msg_t", timestamp: new Date(), body, secrets: secret });
    const tampered = body.replace("page.created", "page.deleted");
    expect(() => new Webhook(secret).verify(tampered, { ...headers })).toThrow();
    expect(verify(tampered, headers, secret).ok).toBe(false);
  });
});
