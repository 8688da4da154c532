import { describe, expect, it } from "vitest";
import { answerChallenge, isChallenge } from "./challenge.js";

const challenge = { type: "webhook.verification", data: { challenge: "nonce_abc" } };

describe("answerChallenge", () => {
  it("echoes the nonce as JSON for raw text, bytes and parsed bodies", () => {
    const expected = {
      status: 200,
      body: '{"challenge":"nonce_abc"}',
      headers: { "content-type": "application/json" },
    };
    expect(answerChallenge(JSON.stringify(challenge))).toEqual(expected);
    expect(answerChallenge(new TextEncoder().encode(JSON.stringify(challenge)))).toEqual(expected);
    expect(answerChallenge(challenge)).toEqual(expected);
  });

  it("escapes the nonce as JSON rather than splicing it in", () => {
    const tricky = { ...challenge, data: { challenge: 'a"b\\c' } };
    expect(JSON.parse(answerChallenge(tricky)!.body)).toEqual({ challenge: 'a"b\\c' });
  });

  it.each([
    ["another event", { type: "product.created", data: { challenge: "x" } }],
    ["no data", { type: "webhook.verification" }],
    ["a numeric nonce", { type: "webhook.verification", data: { challenge: 1 } }],
    ["an empty nonce", { type: "webhook.verification", data: { challenge: "" } }],
    ["invalid JSON", "{not json"],
    ["null", null],
    ["a JSON string", '"webhook.verification"'],
  ])("returns null for %s", (_name, body) => {
    expect(answerChallenge(body)).toBeNull();
    expect(isChallenge(body)).toBe(false);
  });

  it("isChallenge recognises raw and parsed challenges", () => {
    expect(isChallenge(challenge)).toBe(true);
    expect(isChallenge(JSON.stringify(challenge))).toBe(true);
  });
});
