import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiver, type Receiver } from "@lp/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { openDatabase } from "../db/database.js";
import { createManualClock } from "../deps.js";
import type { ResolveHost } from "./address-guard.js";
import { createGuardedPoster } from "./public-lookup.js";
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
    // The tables are kept in the folder too, as `lp serve` keeps them.
    const database = await openDatabase({ kind: "sqlite", file: join(dir, "lp.db") });
    const core = await createCore({ database, clock, scheduler: createManualScheduler(clock), publicOnly, publicUrl: () => "http://lp.test", webhooks: { resolveHost } });
    const creds = await ensureDevCredentials(core.database, clock, core.ids);
    return { core, creds, stop: async () => (await core.close(), await database.close()) };
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
    const post = createGuardedPoster(async () => ["127.0.0.1"]);
    for (const url of [hookUrl(), "http://127.0.0.1:1/", "http://[::ffff:7f00:1]:1/", "http://[2002:7f00:1::1]:1/"]) {
      const result = await post({ url, body: "{}", headers: {}, timeoutMs: 2000, monotonic: () => performance.now() });
      expect(result, url).toMatchObject({ status_code: null, error: expect.stringMatching(/^blocked: /), response_body: null });
    }
    expect(receiver.deliveries).toEqual([]);
  });
});
