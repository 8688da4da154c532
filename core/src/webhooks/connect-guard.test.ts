import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiver, type Receiver } from "@lp/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { createManualClock } from "../deps.js";
import { createStores } from "../storage/create-storage.js";
import type { ResolveHost } from "./address-guard.js";
import { createGuardedFetch } from "./guarded-fetch.js";
import { createManualScheduler } from "./scheduler.js";
import { deliveryListSchema, endpointCreateSchema } from "./schemas.js";

const PUBLIC = "93.184.216.34";

/**
 * A rebinding name: the first `publicAnswers` lookups answer a public address, every later one 127.0.0.1.
 * The receiver listens on 127.0.0.1, and the url names `localhost`, so a client that resolved the name
 * by itself, after the check, would reach it.
 */
function rebinding(publicAnswers: number): ResolveHost & { calls: number } {
  const resolve = Object.assign(async () => (++resolve.calls <= publicAnswers ? [PUBLIC] : ["127.0.0.1"]), { calls: 0 });
  return resolve;
}

describe("--public checks the address actually dialled (DNS rebinding)", () => {
  let dir: string;
  let receiver: Receiver;
  const clock = createManualClock("2026-05-01T08:00:00.000Z");
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "lp-rebind-"));
    receiver = await createReceiver({ now: () => clock.now() });
  });
  afterEach(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function boot(publicOnly: boolean, resolveHost?: ResolveHost) {
    const stores = createStores("fs", dir);
    const core = await createCore({ stores, clock, scheduler: createManualScheduler(clock), publicOnly, publicUrl: () => "http://lp.test", webhooks: { resolveHost } });
    const creds = await ensureDevCredentials(stores.data, clock, core.ids);
    return { core, creds, stop: async () => (await core.close(), await stores.dispose()) };
  }

  const hookUrl = () => `http://localhost:${new URL(receiver.url).port}/hooks`;

  it("fails the challenge when the name answers public to the checks and 127.0.0.1 on the connect", async () => {
    // The check on create and the check before the challenge see a public address; the connect does not.
    const dns = rebinding(2);
    const { core, creds, stop } = await boot(true, dns);
    const created = await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url: hookUrl(), events: ["product.created"] }));
    expect(created.status).toBe("pending_verification");
    expect(created.verification).toMatchObject({ outcome: "failed", status_code: null, error: expect.stringMatching(/^blocked: .*127\.0\.0\.1 when connecting/) });
    expect(dns.calls).toBe(3);
    expect(receiver.deliveries).toEqual([]);
    await stop();
  });

  it("fails a delivery attempt the same way, and records why", async () => {
    const first = await boot(false);
    const endpoint = await first.core.webhooks.endpoints.create(first.creds.application_id, endpointCreateSchema.parse({ url: hookUrl(), events: ["product.created"] }));
    expect(endpoint.status).toBe("active");
    await first.stop();
    const challenges = receiver.deliveries.length;

    // Public to the check before the attempt, 127.0.0.1 when the socket opens.
    const second = await boot(true, rebinding(1));
    await second.core.products.create(second.creds.account_id, { title: "Rebound", price: 5, product_type: "service" });
    await second.core.onIdle();
    const [delivery] = (await second.core.webhooks.endpoints.deliveries(second.creds.application_id, endpoint.id, deliveryListSchema.parse({}))).data;
    expect(delivery.attempts[0]).toMatchObject({ outcome: "failed", status_code: null, error: expect.stringMatching(/^blocked: the host 'localhost' resolved to 127\.0\.0\.1 when connecting/) });
    expect(receiver.deliveries).toHaveLength(challenges);
    await second.stop();
  });

  it("refuses loopback names and IP literals, embedded IPv4 included, before any byte is sent", async () => {
    const fetch = createGuardedFetch(async () => ["127.0.0.1"]);
    for (const url of [hookUrl(), "http://127.0.0.1:1/", "http://[::ffff:7f00:1]:1/", "http://[2002:7f00:1::1]:1/"]) {
      await expect(fetch(url, { method: "POST", body: "{}" }), url).rejects.toMatchObject({ cause: { code: "blocked" } });
    }
    expect(receiver.deliveries).toEqual([]);
  });

  it("speaks HTTP as fetch does when the address is allowed: status, headers, body, no redirects, timeouts", async () => {
    const allowLoopback = (a: string) => a === "127.0.0.1";
    const fetch = createGuardedFetch(async () => ["127.0.0.1"], allowLoopback);
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c)).on("end", () => {
        if (req.url === "/redirect") return res.writeHead(302, { location: "http://elsewhere.example/" }).end();
        if (req.url === "/empty") return res.writeHead(204).end();
        if (req.url === "/silent") return;
        res.writeHead(201, { "content-type": "text/plain", "x-echo": req.headers["x-test"] ?? "" }).end(`${req.method} ${body}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://receiver.example:${(server.address() as { port: number }).port}`;
    try {
      const ok = await fetch(`${base}/hook`, { method: "POST", body: '{"a":1}', headers: { "x-test": "yes" } });
      expect([ok.status, ok.headers.get("x-echo"), await ok.text()]).toEqual([201, "yes", 'POST {"a":1}']);
      const redirect = await fetch(`${base}/redirect`, { method: "POST", body: "" });
      expect([redirect.status, redirect.headers.get("location")]).toEqual([302, "http://elsewhere.example/"]);
      expect((await fetch(`${base}/empty`, { method: "POST", body: "" })).status).toBe(204);
      const controller = new AbortController();
      const silent = fetch(`${base}/silent`, { method: "POST", body: "", signal: controller.signal });
      controller.abort();
      await expect(silent).rejects.toThrow();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
