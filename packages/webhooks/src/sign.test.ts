import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateSecret } from "./secret.js";
import { sign } from "./sign.js";
import { verify } from "./verify.js";

const body = JSON.stringify({ id: "evt_1", type: "product.created", data: { id: 1 } });
const at = new Date("2026-11-22T02:24:58.123Z");
const atSeconds = Math.floor(at.getTime() / 1000);
const now = () => at;

describe("sign", () => {
  it("produces the three Standard Webhooks headers over {id}.{timestamp}.{body}", () => {
    const secret = generateSecret();
    const headers = sign({ id: "msg_1", timestamp: at, body, secrets: secret });
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const expected = createHmac("sha256", key).update(`msg_1.${atSeconds}.${body}`).digest("base64");
    expect(headers).toEqual({
      "webhook-id": "msg_1",
      "webhook-timestamp": String(atSeconds),
      "webhook-signature": `v1,${expected}`,
    });
  });

  it("round-trips through verify, for a Date, unix seconds, and a byte body", () => {
    const secret = generateSecret();
    for (const timestamp of [at, atSeconds, atSeconds + 0.9]) {
      const headers = sign({ id: "msg_1", timestamp, body, secrets: secret });
      expect(verify(body, headers, secret, { now })).toEqual({
        ok: true,
        id: "msg_1",
        timestamp: new Date(atSeconds * 1000),
        secretIndex: 0,
      });
    }
    const bytes = new TextEncoder().encode(body);
    const headers = sign({ id: "msg_2", timestamp: at, body: bytes, secrets: secret });
    expect(verify(body, headers, secret, { now }).ok).toBe(true);
    expect(verify(Buffer.from(bytes), headers, secret, { now }).ok).toBe(true);
  });

  it("signs with every secret, newest first, during a rotation", () => {
    const [next, previous] = [generateSecret(), generateSecret()];
    const both = sign({ id: "msg_1", timestamp: at, body, secrets: [next, previous] });
    const onlyNext = sign({ id: "msg_1", timestamp: at, body, secrets: next });
    const onlyPrevious = sign({ id: "msg_1", timestamp: at, body, secrets: previous });
    expect(both["webhook-signature"]).toBe(
      `${onlyNext["webhook-signature"]} ${onlyPrevious["webhook-signature"]}`,
    );
  });

  it("signs repeated attempts with each secret's own key, and still refuses a malformed copy of a known secret", () => {
    const [first, second] = [generateSecret(), generateSecret()];
    const expected = (secret: string) =>
      `v1,${createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(`msg_1.${atSeconds}.${body}`).digest("base64")}`;
    for (let round = 0; round < 3; round++) {
      expect(sign({ id: "msg_1", timestamp: at, body, secrets: first })["webhook-signature"]).toBe(expected(first));
      expect(sign({ id: "msg_1", timestamp: at, body, secrets: second })["webhook-signature"]).toBe(expected(second));
    }
    expect(() => sign({ id: "m", timestamp: at, body, secrets: `${first}\n` })).toThrow(/whitespace/);
  });

  it("refuses to sign with a bad id, timestamp or secret", () => {
    const secret = generateSecret();
    expect(() => sign({ id: "", timestamp: at, body, secrets: secret })).toThrow(/id/);
    expect(() => sign({ id: "m", timestamp: new Date(Number.NaN), body, secrets: secret })).toThrow(/timestamp/);
    expect(() => sign({ id: "m", timestamp: -1, body, secrets: secret })).toThrow(/timestamp/);
    expect(() => sign({ id: "m", timestamp: at, body, secrets: [] })).toThrow(/at least one secret/);
    expect(() => sign({ id: "m", timestamp: at, body, secrets: ` ${secret}` })).toThrow(/whitespace/);
    expect(() => sign({ id: "m", timestamp: at, body, secrets: "" })).toThrow(/empty/);
  });
});
