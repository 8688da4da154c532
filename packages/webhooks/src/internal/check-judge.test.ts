import { describe, expect, it } from "vitest";
import type { CheckExchange } from "../check-receiver-types.js";
import { describeExchange, judge, SLOW_MS } from "./check-judge.js";

const exchange = (over: Partial<CheckExchange>): CheckExchange => ({
  webhookId: "dlv_1",
  timestamp: 1,
  signature: "v1,x",
  status: 200,
  error: null,
  location: null,
  body: "",
  latencyMs: 5,
  ...over,
});

describe("check verdicts", () => {
  it("describes statuses, redirects, errors and slow answers", () => {
    expect(describeExchange(exchange({ status: 204 }))).toBe("204");
    expect(describeExchange(exchange({ status: 302, location: "https://x/" }))).toBe("302 → https://x/");
    expect(describeExchange(exchange({ status: null, error: "ECONNREFUSED: connect" }))).toBe("ECONNREFUSED: connect");
    expect(describeExchange(exchange({ status: 200, latencyMs: SLOW_MS + 2500 }))).toBe("200 (12.5 s)");
  });

  it("judges the challenge as lp's verification does: exactly 200, the echo, within 10 s", () => {
    const nonce = "n0nce";
    const run = (over: Partial<CheckExchange>, expectChallenge = true) => judge("challenge", "challenge", [exchange(over)], { nonce, expectChallenge });
    expect(run({ body: JSON.stringify({ challenge: nonce }) }).verdict).toBe("pass");
    expect(run({ body: ` ${nonce}\n` }).verdict).toBe("pass");
    expect(run({ status: 201, body: nonce })).toMatchObject({ verdict: "fail", note: expect.stringContaining("answered 201, not 200") });
    expect(run({ body: JSON.stringify({ challenge: "other" }) })).toMatchObject({ verdict: "fail", note: expect.stringContaining("without echoing") });
    expect(run({ body: nonce, latencyMs: SLOW_MS + 1 })).toMatchObject({ verdict: "fail", note: expect.stringContaining("more than 10 s") });
    expect(run({ status: 301, location: "/x" })).toMatchObject({ verdict: "fail", note: expect.stringContaining("never follows redirects") });
    expect(run({ status: 404 }, false)).toMatchObject({ verdict: "info", note: expect.stringContaining("pending_verification") });
    expect(run({ status: 503 }, false)).toMatchObject({ verdict: "fail", note: expect.stringMatching(/^crashed: answered 503 to a validly signed request/) });
  });

  it("reports a refused repeat of a webhook-id as information with what lp does about it", () => {
    const result = judge("duplicate-id", "info", [exchange({}), exchange({ status: 409 })], { expectChallenge: false });
    expect(result).toMatchObject({ verdict: "info", note: expect.stringContaining("the repeat was answered 409: lp records that attempt as failed and retries") });
  });

  it("fails any other status where a 4xx or a 2xx was expected", () => {
    expect(judge("wrong-secret", "refuse", [exchange({ status: 302 })], { expectChallenge: false }).verdict).toBe("fail");
    expect(judge("valid", "accept", [exchange({ status: 101 })], { expectChallenge: false })).toMatchObject({ verdict: "fail" });
    expect(judge("wrong-secret", "refuse", [exchange({ status: 100 })], { expectChallenge: false })).toMatchObject({ verdict: "fail", note: "expected a 4xx, got 100" });
  });
});
