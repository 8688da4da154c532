import { readFileSync } from "node:fs";
import { createReceiver, sign } from "@lp/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../main.js";
import { createFakeIo, type FakeIo } from "../../testing/fake-io.js";
import { createHarness, type Harness } from "../../testing/harness.js";
import { EVENT_TYPES as CORE_EVENT_TYPES } from "@lp/core";
import { EVENT_TYPES } from "../../runtime/events.js";
import { toOptions } from "./listen.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** Posts a signed event like the service does. */
async function send(url: string, type: string, id: string, secret = SECRET) {
  const body = JSON.stringify({ id: `evt_${id}`, type, timestamp: new Date().toISOString(), account_id: "acct_dev", environment: "production", data: {} });
  const headers = { ...sign({ id, timestamp: new Date(), body, secrets: secret }), "content-type": "application/json", "webhook-event-type": type, "webhook-attempt": "1" };
  const response = await fetch(url, { method: "POST", body, headers });
  return { status: response.status, body: await response.text() };
}

/** Starts `lp listen` in-process and resolves with its URL once the readiness line is out. */
async function listen(args: string[], fake: FakeIo = createFakeIo()) {
  const done = main(["listen", ...args], fake.io);
  const ready = await Promise.race([fake.waitForStderr(/Ready: receiving webhooks at (\S+)/), done.then((code) => Promise.reject(new Error(`exited ${code}: ${fake.stderr}`)))]);
  return { url: /Ready: receiving webhooks at (\S+)/.exec(ready)![1], done, fake };
}

describe("listen: parsing", () => {
  it("reads expectations and refuses contradictory flags", () => {
    const opts = toOptions({ args: [], flags: { port: "0", secret: [SECRET], expect: ["product.created:2", "page.created"], expectAttempts: ["page.created:3"], respond: "500,200" } });
    expect(opts).toMatchObject({
      expect: [{ type: "product.created", count: 2, kind: "messages" }, { type: "page.created", count: 1, kind: "messages" }, { type: "page.created", count: 3, kind: "attempts" }],
      respond: [500, 200],
      timeoutMs: 300_000,
    });
    expect(toOptions({ args: [], flags: { port: "0", register: true } }).register?.events).toEqual(EVENT_TYPES);
    expect(toOptions({ args: [], flags: { port: "0", register: true, events: "*" } }).register?.events).toEqual(EVENT_TYPES);
    expect(() => toOptions({ args: [], flags: { port: "0", expect: ["page.created"] } })).toThrow(/--expect counts verified deliveries/);
    expect(() => toOptions({ args: [], flags: { port: "0", register: true, events: "a", secret: ["s"] } })).toThrow(/drop --secret/);
    expect(() => toOptions({ args: [], flags: { port: "0", forwardTo: "http://x", respond: "200" } })).toThrow(/drop --respond/);
    expect(() => toOptions({ args: [], flags: { port: "0", respond: "99" } })).toThrow(/--respond/);
    expect(() => toOptions({ args: [], flags: { port: "0", secret: [SECRET], expect: ["a:b:c"] } })).toThrow(/--expect/);
  });
});

describe("listen: event types", () => {
  it("knows the same subscribable events as the service, from an entry of the contract that loads nothing", () => {
    expect([...EVENT_TYPES]).toEqual([...CORE_EVENT_TYPES]);
    // `lp listen` and `lp trigger` start without zod: the catalogue's entry imports no module at all.
    const source = readFileSync(new URL("../../../../packages/contract/src/events.ts", import.meta.url), "utf8");
    expect(source).not.toMatch(/^\s*(import|export\s.*\sfrom)\s/m);
  });
});

describe("listen: receiving", () => {
  it("verifies, prints NDJSON and exits 0 once every expectation is met", async () => {
    const { url, done, fake } = await listen(["--secret", SECRET, "--expect", "product.created:2", "--json"]);
    expect((await send(url, "product.created", "msg_1")).status).toBe(200);
    expect((await send(url, "product.created", "msg_1")).status).toBe(200); // a retry of the same message
    expect((await send(url, "product.created", "msg_2")).status).toBe(200);
    expect(await done).toBe(0);
    const lines = fake.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.webhook_id, l.verified, l.duplicate, l.status])).toEqual([["msg_1", true, false, 200], ["msg_1", true, true, 200], ["msg_2", true, false, 200]]);
  });

  it("--expect counts a message once it was answered 2xx; --expect-attempts counts every verified attempt", async () => {
    const { url, done, fake } = await listen(["--secret", SECRET, "--respond", "500,500,200", "--expect", "product.created:1", "--expect-attempts", "product.created:3", "--json"]);
    expect((await send(url, "product.created", "msg_r")).status).toBe(500);
    expect((await send(url, "product.created", "msg_r")).status).toBe(500);
    expect(fake.stderr).not.toContain("Expectations");
    expect((await send(url, "product.created", "msg_r")).status).toBe(200);
    expect(await done).toBe(0);
    expect(fake.stdout.trim().split("\n").map((l) => JSON.parse(l).status)).toEqual([500, 500, 200]);
  });

  it("answers 400 with the reason to a bad signature, and exits 1 with a summary when expectations are missed", async () => {
    const { url, done, fake } = await listen(["--secret", SECRET, "--expect", "page.created", "--timeout", "200ms"]);
    const rejected = await send(url, "page.created", "msg_bad", "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    expect(rejected.status).toBe(400);
    expect(JSON.parse(rejected.body).error).toBe("no_matching_signature");
    expect(await done).toBe(1);
    expect(fake.stdout).toBe("");
    expect(fake.stderr).toContain("Rejected msg_bad with 400: no_matching_signature");
    expect(fake.stderr).toMatch(/Error: Expectations not met: page\.created 0\/1\. Received 1 request\(s\); verified events: none; 1 rejected \(no_matching_signature\)\. \(code: expectation_unmet\)/);
  });

  it("replies with scripted statuses and answers verification challenges", async () => {
    const { url, done, fake } = await listen(["--secret", SECRET, "--respond", "500,200"]);
    expect((await send(url, "product.created", "m1")).status).toBe(500);
    expect((await send(url, "product.created", "m1")).status).toBe(200);
    const body = JSON.stringify({ type: "webhook.verification", data: { challenge: "nonce-123" } });
    const challenge = await fetch(url, { method: "POST", body, headers: { ...sign({ id: "c1", timestamp: new Date(), body, secrets: SECRET }), "content-type": "application/json" } });
    expect(challenge.status).toBe(200);
    expect(await challenge.text()).toContain("nonce-123");
    fake.shutdown();
    expect(await done).toBe(0);
    expect(fake.stdout.trim().split("\n")).toHaveLength(2);
    expect(fake.stderr).toContain("Answered a verification challenge (200).");
  });

  it("forwards verified deliveries with their headers and answers with the target's status", async () => {
    const target = await createReceiver({ secret: SECRET, respond: 202 });
    try {
      const { url, done, fake } = await listen(["--secret", SECRET, "--forward-to", `${target.url}/hooks`]);
      expect((await send(url, "product.updated", "fw1")).status).toBe(202);
      expect(target.deliveries.map((d) => [d.path, d.verified, d.webhookId])).toEqual([["/hooks", true, "fw1"]]);
      fake.shutdown();
      expect(await done).toBe(0);
    } finally {
      await target.close();
    }
  });
});

describe("listen --register (against the app)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("creates an endpoint pointing at itself, prints its secret, and deletes it on exit", async () => {
    const fake = createFakeIo({ cwd: h.home, env: h.env });
    const done = main(["listen", "--register", "--events", "product.created", "--print-secret"], fake.io, { fetch: h.fetch });
    await fake.waitForStderr(/Ready: receiving webhooks at /);
    const [endpoint] = (await h.lp(["webhooks", "list", "--json"])).json();
    expect(endpoint).toMatchObject({ status: "active", events: ["product.created"] });
    expect(fake.stdout).toMatch(/^whsec_\S+\n$/);
    expect(fake.stderr).toContain("Answered a verification challenge (200).");
    fake.shutdown();
    expect(await done).toBe(0);
    expect((await h.lp(["webhooks", "list", "--json"])).json()).toEqual([]);
  });

  it("--tunnel registers the tunnel's public URL, and closes the tunnel on exit", async () => {
    const fake = createFakeIo({ cwd: h.home, env: h.env });
    const calls: string[] = [];
    // No internet here: untun's startTunnel is replaced by a stand-in that records what it is asked.
    const startTunnel = async ({ url }: { url: string }) => {
      calls.push(`start ${url}`);
      return { getURL: async () => "https://lp-test.trycloudflare.com", close: async () => void calls.push("close") };
    };
    const done = main(["listen", "--register", "--tunnel", "--events", "product.created"], fake.io, { fetch: h.fetch, startTunnel });
    const ready = await fake.waitForStderr(/Ready: receiving webhooks at (\S+)/);
    const local = /Ready: receiving webhooks at (\S+)/.exec(ready)![1];
    expect(calls).toEqual([`start ${local}`]);
    expect(fake.stderr).toContain(`Tunnel: https://lp-test.trycloudflare.com -> ${local}`);
    const [endpoint] = (await h.lp(["webhooks", "list", "--json"])).json();
    expect(endpoint.url).toBe("https://lp-test.trycloudflare.com");
    fake.shutdown();
    expect(await done).toBe(0);
    expect(calls).toEqual([`start ${local}`, "close"]);
  });

  it("--backfill first replays the events it missed, then exits once --expect is met", async () => {
    await h.close();
    // Events signed at the machine's time, which the receiver checks them against.
    h = await createHarness({ manualClock: true, start: new Date().toISOString() });
    const made = [];
    for (const title of ["Missed one", "Missed two"]) made.push((await h.app.call("POST", "products", { body: { title, price: 1, product_type: "service" } })).json.data.id);
    const fake = createFakeIo({ cwd: h.home, env: h.env });
    const code = await main(["listen", "--register", "--events", "product.created", "--backfill", "10m", "--expect", "product.created:2", "--timeout", "1m", "--json"], fake.io, { fetch: h.fetch });
    expect(code, fake.stderr).toBe(0);
    expect(fake.stderr).toMatch(/Backfill: 2 events since \S+ scheduled for delivery here/);
    const events = fake.stdout.trim().split("\n").map((line) => JSON.parse(line)).filter((r) => r.type === "product.created");
    expect(events.map((r) => r.event.data.id)).toEqual(made);
    expect(events.every((r) => r.verified === true)).toBe(true);
    expect(() => toOptions({ args: [], flags: { port: "0", backfill: "10m" } })).toThrow(/go with --register/);
    expect(() => toOptions({ args: [], flags: { port: "0", register: true, backfill: "ten minutes" } })).toThrow(/--backfill/);
  });

  it("--tunnel fails clearly when no tunnel starts", async () => {
    const fake = createFakeIo({ cwd: h.home, env: h.env });
    const code = await main(["listen", "--tunnel"], fake.io, { fetch: h.fetch, startTunnel: async () => undefined });
    expect(code).toBe(1);
    expect(fake.stderr).toContain("--tunnel: the tunnel did not start");
  });
});
