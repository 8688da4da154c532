import type { FetchLike } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";

/** A stand-in for the internet: answers every challenge and records every request. */
function fakeInternet() {
  const calls: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push(url);
    const body = JSON.parse(String(init.body));
    const reply = body.type === "webhook.verification" ? JSON.stringify({ challenge: body.data.challenge }) : "{}";
    return new Response(reply, { status: 200, headers: { "content-type": "application/json" } });
  };
  return { calls, fetch };
}

describe("outbound safety with publicOnly (lp serve --public)", () => {
  let t: WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });

  it("refuses urls that resolve to private, loopback, link-local or metadata addresses, checked after DNS", async () => {
    const dns: Record<string, string[]> = {
      "localhost": ["127.0.0.1", "::1"],
      "intranet.example": ["10.1.2.3"],
      "metadata.google.internal": ["169.254.169.254"],
      "mixed.example": ["93.184.216.34", "192.168.1.10"],
      "hooks.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    };
    const net = fakeInternet();
    t = await createWebhookTestApp({
      coreDeps: { publicOnly: true, fetch: net.fetch, webhooks: { resolveHost: async (host) => dns[host] ?? [] } },
    });
    const refused = [
      "http://127.0.0.1:8080/",
      "http://localhost/",
      "http://[::1]/",
      "http://[::ffff:169.254.169.254]/",
      "http://intranet.example/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://mixed.example/",
      "http://0.0.0.0/",
      "http://nowhere.example/",
    ];
    for (const url of refused) {
      const res = await t.dev("POST", "", { url, events: ["product.created"] });
      expect(res.status, url).toBe(400);
      expect(res.json.error.details.issues[0]).toMatchObject({ path: "url", code: "blocked_address" });
    }
    expect(net.calls).toEqual([]);

    const ok = await t.dev("POST", "", { url: "https://hooks.example/lp", events: ["product.created"] });
    expect(ok.status).toBe(201);
    expect(ok.json.data.status).toBe("active");
    const patched = await t.dev("PATCH", `/${ok.json.data.id}`, { url: "http://intranet.example/" });
    expect(patched.status).toBe(400);

    // Checked again at send time: a name that now points inside is not called.
    dns["hooks.example"] = ["10.0.0.5"];
    await t.product();
    await t.settle();
    expect(net.calls).toEqual(["https://hooks.example/lp"]);
    const [delivery] = (await t.dev("GET", `/${ok.json.data.id}/deliveries`)).json.data;
    expect(delivery.attempts[0]).toMatchObject({ outcome: "failed", status_code: null, error: expect.stringMatching(/^blocked: .*10\.0\.0\.5/) });
    const verify = await t.dev("POST", `/${ok.json.data.id}/verify`);
    expect(verify.json.data).toMatchObject({ outcome: "failed", error: expect.stringContaining("non-public") });
  });

  it("allows loopback receivers by default (a local tool)", async () => {
    t = await createWebhookTestApp();
    const receiver = await t.receiver();
    const endpoint = await t.endpoint(receiver);
    expect(endpoint.status).toBe("active");
  });
});
