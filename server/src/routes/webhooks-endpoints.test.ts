import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultTestStorage } from "../testing/test-app.js";
import { createWebhookTestApp, verifyWithReference, type WebhookTestApp } from "./webhooks-test-kit.js";

/** The run's store, and SQLite. */
const STORES = [...new Set([defaultTestStorage(), "sqlite" as const])];

describe("developer plane: webhook endpoints", () => {
  let t: WebhookTestApp;
  beforeEach(async () => {
    t = await createWebhookTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it("creates an endpoint: 201 with the secret once, a signed challenge answered, and status active", async () => {
    const receiver = await t.receiver();
    const res = await t.dev("POST", "", { url: `${receiver.url}/hooks`, events: ["product.created", "page.created"] });
    expect(res.status).toBe(201);
    const created = res.json.data;
    expect(created).toMatchObject({
      url: `${receiver.url}/hooks`,
      events: ["product.created", "page.created"],
      environment: "production",
      concurrency_limit: 4,
      status: "active",
      disabled_reason: null,
      circuit: { state: "closed", consecutive_failures: 0, reopen_count: 0, opens_until: null },
      verification: { outcome: "succeeded", status_code: 200 },
    });
    expect(created.id).toMatch(/^we_[0-9a-f]{16,64}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.verification.error).toBeUndefined();
    expect(created.last_verification).toMatchObject({ outcome: "succeeded", status_code: 200, error: null, at: "2026-03-01T10:00:00.000Z" });

    const [challenge] = receiver.deliveries;
    expect(challenge.challenge).toBe(true);
    expect(JSON.parse(challenge.body)).toEqual({ type: "webhook.verification", data: { challenge: expect.any(String) } });
    expect(challenge.headers["webhook-event-type"]).toBe("webhook.verification");
    expect(verifyWithReference(created.secret, challenge)).toMatchObject({ type: "webhook.verification" });

    const got = await t.dev("GET", `/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.json.data.secret).toBeUndefined();
    const { secret: _s, verification: _v, ...view } = created;
    expect(got.json.data).toEqual(view);
    const listed = await t.dev("GET");
    expect(listed.json).toEqual({ data: [view], pagination: { next_cursor: null, has_more: false } });
    expect(JSON.stringify(listed.json)).not.toContain("whsec_");
  });

  it("accepts the nonce echoed as plain text", async () => {
    const server = await t.server((_req, res, body) => res.writeHead(200, { "content-type": "text/plain" }).end(JSON.parse(body).data.challenge));
    const res = await t.dev("POST", "", { url: server.url, events: ["product.created"] });
    expect(res.json.data).toMatchObject({ status: "active", verification: { outcome: "succeeded" } });
  });

  /** A receiver that never answers the challenge. */
  const silent = () => null;
  const failures: [string, (body: string) => { status: number; headers?: Record<string, string>; text: string } | null, RegExp][] = [
    ["a wrong echo", () => ({ status: 200, text: JSON.stringify({ challenge: "not-the-nonce" }) }), /did not echo/],
    ["a non-200 status with the right echo", (b) => ({ status: 201, text: JSON.stringify({ challenge: JSON.parse(b).data.challenge }) }), /expected status 200, got 201/],
    ["a 500", () => ({ status: 500, text: "boom" }), /got 500/],
    ["a redirect (not followed)", () => ({ status: 307, headers: { location: "http://127.0.0.1:9/elsewhere" }, text: "" }), /redirect to http:\/\/127\.0\.0\.1:9\/elsewhere not followed/],
    ["no answer within the timeout", silent, /timeout/],
  ];
  for (const [name, reply, error] of failures) {
    it(`leaves the endpoint pending_verification on ${name}`, async () => {
      // Only the receiver that never answers waits for the timeout: a short one, on an app of its own.
      const app = reply === silent ? await createWebhookTestApp({ coreDeps: { webhooks: { verificationTimeoutMs: 300 } } }) : t;
      try {
        const server = await app.server((_req, res, body) => {
          const r = reply(body);
          if (r) res.writeHead(r.status, { "content-type": "application/json", ...r.headers }).end(r.text);
        });
        const res = await app.dev("POST", "", { url: server.url, events: ["product.created"] });
        expect(res.status).toBe(201);
        expect(res.json.data.status).toBe("pending_verification");
        expect(res.json.data.verification.outcome).toBe("failed");
        expect(res.json.data.verification.error).toMatch(error);
        expect(res.json.data.last_verification.error).toMatch(error);
      } finally {
        if (app !== t) await app.close();
      }
    });
  }

  it("validates the body", async () => {
    const cases: [unknown, string][] = [
      [{ url: "ftp://x.example/", events: ["product.created"] }, "url"],
      [{ url: "https://user:pw@x.example/", events: ["product.created"] }, "url"],
      [{ url: "not a url", events: ["product.created"] }, "url"],
      [{ url: "https://x.example/", events: ["product.exploded"] }, "events.0"],
      [{ url: "https://x.example/", events: ["product.created", "product.created"] }, "events.1"],
      [{ url: "https://x.example/", events: ["webhook.test"] }, "events.0"],
      [{ url: "https://x.example/", events: [] }, "events"],
      [{ url: "https://x.example/", events: ["product.created"], concurrency_limit: 51 }, "concurrency_limit"],
      [{ url: "https://x.example/", events: ["product.created"], concurrency_limit: 0 }, "concurrency_limit"],
      [{ url: "https://x.example/", events: ["product.created"], environment: "staging" }, "environment"],
      [{ url: "https://x.example/", events: ["product.created"], secret: "whsec_mine" }, ""],
      [{ events: ["product.created"] }, "url"],
    ];
    for (const [body, path] of cases) {
      const res = await t.dev("POST", "", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.code).toBe("validation_error");
      expect(res.json.error.details.issues.map((i: any) => i.path), JSON.stringify(body)).toContain(path);
    }
    const receiver = await t.receiver();
    const created = await t.endpoint(receiver);
    for (const body of [{ status: "active" }, { environment: "test" }, { events: ["nope"] }]) {
      expect((await t.dev("PATCH", `/${created.id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it("PATCH replaces events, and a changed url returns to pending_verification without sending anything", async () => {
    const receiver = await t.receiver();
    const created = await t.endpoint(receiver);
    const other = await t.receiver();
    const patched = await t.dev("PATCH", `/${created.id}`, { events: ["page.deleted", "product.updated"], concurrency_limit: 7 });
    expect(patched.json.data).toMatchObject({ events: ["page.deleted", "product.updated"], concurrency_limit: 7, status: "active" });
    const moved = await t.dev("PATCH", `/${created.id}`, { url: `${other.url}/new` });
    expect(moved.status).toBe(200);
    expect(moved.json.data).toMatchObject({ url: `${other.url}/new`, status: "pending_verification" });
    expect(other.deliveries).toHaveLength(0);
    const verified = await t.dev("POST", `/${created.id}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.json.data).toMatchObject({ outcome: "succeeded", status_code: 200, endpoint: { status: "active" } });
    expect(verified.json.data.error).toBeUndefined();
    expect(other.deliveries.filter((d) => d.challenge)).toHaveLength(1);
  });

  it("rotates the secret: shown once, both signatures newest first for 24 h, status and circuit unchanged", async () => {
    const receiver = await t.receiver();
    const created = await t.endpoint(receiver);
    await t.dev("PATCH", `/${created.id}`, { status: "paused" });
    const rotated = await t.dev("POST", `/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.data.secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(created.secret);
    expect(rotated.json.data).toMatchObject({ status: "paused", circuit: created.circuit, previous_secret_expires_at: "2026-03-02T10:00:00.000Z" });
    expect((await t.dev("GET", `/${created.id}`)).json.data.secret).toBeUndefined();
    receiver.setSecret([fresh, created.secret]);
    await t.dev("POST", `/${created.id}/verify`);

    await t.product("During overlap");
    await t.settle();
    const during = receiver.deliveries.at(-1)!;
    expect(during.eventType).toBe("product.created");
    expect(during.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verifyWithReference(fresh, during)).toMatchObject({ type: "product.created" });
    expect(verifyWithReference(created.secret, during)).toMatchObject({ type: "product.created" });
    const onlyNew = { ...during, headers: { ...during.headers, "webhook-signature": during.headers["webhook-signature"].split(" ")[0] } };
    expect(verifyWithReference(fresh, onlyNew)).toBeTruthy();

    t.clock.advance(24 * 3600 * 1000 + 1);
    await t.product("After overlap");
    await t.settle();
    const after = receiver.deliveries.at(-1)!;
    expect(JSON.parse(after.body).data.title).toBe("After overlap");
    expect(after.headers["webhook-signature"].split(" ")).toHaveLength(1);
    expect(verifyWithReference(fresh, after)).toBeTruthy();
    expect(() => verifyWithReference(created.secret, after)).toThrow();
  });

  it("hides endpoints from other applications and from the account plane (404), and never touches storage for bad ids", async () => {
    const receiver = await t.receiver();
    const created = await t.endpoint(receiver);
    const other = await t.admin("POST", "/_admin/apps", { name: "other", account_ids: [t.creds.account_id] });
    const otherAuth = t.basicOf(other.json.data.application_id, other.json.data.client_secret);
    const ops: [string, string, unknown?][] = [
      ["GET", `/${created.id}`],
      ["PATCH", `/${created.id}`, { status: "paused" }],
      ["DELETE", `/${created.id}`],
      ["POST", `/${created.id}/verify`],
      ["POST", `/${created.id}/rotate-secret`],
      ["POST", `/${created.id}/test`],
      ["GET", `/${created.id}/deliveries`],
      ["POST", `/${created.id}/deliveries/dlv_0123456789abcdef0123/retry`],
    ];
    for (const [method, path, body] of ops) {
      const res = await t.dev(method, path, body, otherAuth);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error).toMatchObject({ code: "not_found", details: { resource: "webhook endpoint" } });
      const bearer = await t.call(method, `/v1/developer/webhook-endpoints${path}`, { body });
      expect(bearer.status, `bearer ${method} ${path}`).toBe(404);
      expect(bearer.json.error.code).toBe("not_found");
    }
    expect((await t.dev("GET", "", undefined, otherAuth)).json.data).toEqual([]);
    expect((await t.call("GET", "/v1/developer/webhook-endpoints")).status).toBe(404);
    expect((await t.dev("GET", "", undefined, t.basicOf(t.creds.application_id, "wrong"))).status).toBe(401);
    for (const id of ["we_nothex", "app_0123456789abcdef01234567", "we_..%2F..", "WE_0123456789abcdef"]) {
      expect((await t.dev("GET", `/${id}`)).status, id).toBe(404);
    }
    expect((await t.dev("POST", `/${created.id}/deliveries/..%2Fx/retry`)).json.error.details.resource).toBe("delivery");
    expect((await t.dev("GET", `/${created.id}`)).json.data.status).toBe("active");
  });

  it.each(STORES)("deletes an endpoint (204) with its deliveries, pending retries included (%s)", async (storage) => {
    if (storage !== defaultTestStorage()) {
      await t.close();
      t = await createWebhookTestApp({ storage });
    }
    const receiver = await t.receiver({ respond: [200, 500] });
    const created = await t.endpoint(receiver);
    await t.product("Delivered");
    await t.product("Failing");
    await t.settle();
    const before = receiver.deliveries.length;
    expect((await t.dev("GET", `/${created.id}/deliveries?status=pending`)).json.data).toHaveLength(1);
    expect((await t.dev("DELETE", `/${created.id}`)).status).toBe(204);
    expect((await t.dev("GET", `/${created.id}`)).status).toBe(404);
    expect((await t.dev("GET", `/${created.id}/deliveries`)).status).toBe(404);
    await t.advance(24 * 3_600_000);
    expect(receiver.deliveries).toHaveLength(before);
    // Its deliveries and their attempts went with it; the events they carried stay for replay.
    expect(await t.core.database.db.selectFrom("webhook_deliveries").select("id").execute()).toEqual([]);
    expect(await t.core.database.db.selectFrom("delivery_attempts").select("delivery_id").execute()).toEqual([]);
    expect(await t.core.database.db.selectFrom("events").select("id").execute()).toHaveLength(2);
    expect((await t.dev("GET")).json.data).toEqual([]);
  });

  it("refuses a body on operations that take none", async () => {
    const receiver = await t.receiver();
    const created = await t.endpoint(receiver);
    expect((await t.dev("POST", `/${created.id}/test`, { now: true })).status).toBe(400);
    expect((await t.dev("POST", `/${created.id}/verify`, {})).status).toBe(200);
  });
});
