import { describe, expect, it } from "vitest";
import { BODY_LIMIT, redactBody, redactHeaders, redactUrl } from "./redact.js";

describe("request log redaction", () => {
  it("replaces credential headers and credential-shaped values in others", () => {
    const headers = new Headers({ authorization: "Bearer lp_abcdefghijkl", cookie: "lp_dashboard=x", "x-note": "secret whsec_abcdefghij here", accept: "*/*" });
    expect(redactHeaders(headers)).toEqual({ authorization: "[redacted]", cookie: "[redacted]", "x-note": "secret whsec_[redacted] here", accept: "*/*" });
  });

  it("replaces JSON fields named like credentials, at any depth, and keeps the rest", () => {
    const body = JSON.stringify({ data: { client_secret: "lpsk_abcdefghij", name: "Shop", nested: [{ token: "t0ken-value", note: "lpadm_abcdefghij" }] } });
    const out = JSON.parse(redactBody(body).body);
    expect(out).toEqual({ data: { client_secret: "[redacted]", name: "Shop", nested: [{ token: "[redacted]", note: "lpadm_[redacted]" }] } });
  });

  it("falls back to patterns for text that is not JSON, and cuts long bodies", () => {
    expect(redactBody('{"secret": "whsec_abcdefghij", broken').body).toBe('{"secret": "whsec_[redacted]", broken');
    const long = redactBody(`${"a".repeat(BODY_LIMIT * 2)} lp_abcdefghijk`);
    expect(long.truncated).toBe(true);
    expect(long.body.length).toBe(BODY_LIMIT);
  });

  it("replaces credential-named query parameters (the login token)", () => {
    expect(redactUrl(new URL("http://x/_dashboard/login?token=abc&page=2"))).toBe("/_dashboard/login?token=%5Bredacted%5D&page=2");
    expect(redactUrl(new URL("http://x/v1/a"))).toBe("/v1/a");
  });
});
