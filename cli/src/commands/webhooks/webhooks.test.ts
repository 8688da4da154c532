import { createReceiver, type Receiver } from "@lp/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";
import { toOptions as createOptions } from "./create.js";
import { toOptions as updateOptions } from "./update.js";

describe("webhooks: parsing", () => {
  it("splits --events and bounds --concurrency", () => {
    expect(createOptions({ args: [], flags: { url: "http://x", events: "a,b", environment: "test", concurrency: "2" } }, { canPrompt: false })).toEqual({
      url: "http://x", events: ["a", "b"], environment: "test", concurrency: 2, json: false,
    });
    expect(() => createOptions({ args: [], flags: { url: "http://x", events: "a", concurrency: "99" } }, { canPrompt: false })).toThrow(/--concurrency/);
    expect(() => createOptions({ args: [], flags: {} }, { canPrompt: false })).toThrow("Missing --url, --events.");
    expect(updateOptions({ args: ["we_1"], flags: { status: "paused" } }).body).toEqual({ status: "paused" });
    expect(() => updateOptions({ args: ["we_1"], flags: { status: "active" } })).toThrow(/paused, disabled/);
  });
});

describe("webhooks: commands against the app (developer plane)", () => {
  let h: Harness;
  let receiver: Receiver;
  beforeEach(async () => {
    h = await createHarness();
    // No secret: the receiver answers the challenge and accepts every delivery.
    receiver = await createReceiver();
  });
  afterEach(async () => {
    await h.close();
    await receiver.close();
  });

  it("creates (secret once, verified), lists, updates, verifies, rotates, tests, lists deliveries, retries and deletes", async () => {
    const created = await h.lp(["webhooks", "create", "--url", `${receiver.url}/hooks`, "--events", "product.created,page.created", "--json"]);
    expect(created.code).toBe(0);
    const endpoint = created.json();
    expect(endpoint).toMatchObject({ status: "active", events: ["product.created", "page.created"], verification: { outcome: "succeeded" } });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await h.lp(["webhooks", "list", "--json"])).json().map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    const got = (await h.lp(["webhooks", "get", endpoint.id, "--json"])).json();
    expect(got.secret).toBeUndefined();
    expect((await h.lp(["webhooks", "update", endpoint.id, "--status", "paused", "--json"])).json().status).toBe("paused");
    const verified = await h.lp(["webhooks", "verify", endpoint.id, "--json"]);
    expect(verified.json()).toMatchObject({ outcome: "succeeded", endpoint: { status: "active" } });
    const rotated = (await h.lp(["webhooks", "rotate-secret", endpoint.id, "--json"])).json();
    expect(rotated.secret).not.toBe(endpoint.secret);
    const test = (await h.lp(["webhooks", "test", endpoint.id, "--json"])).json();
    expect(test).toMatchObject({ event_type: "webhook.test" });
    await h.app.core.onIdle();
    const deliveries = (await h.lp(["webhooks", "deliveries", endpoint.id, "--event-type", "webhook.test", "--json"])).json();
    expect(deliveries.map((d: { id: string }) => d.id)).toEqual([test.id]);
    const retried = await h.lp(["webhooks", "retry", endpoint.id, test.id, "--json"]);
    expect(retried.code).toBe(0);
    expect(retried.json().id).toBe(test.id);
    expect((await h.lp(["webhooks", "delete", endpoint.id])).code).toBe(0);
    expect((await h.lp(["webhooks", "get", endpoint.id])).code).toBe(1);
  });

  it("exits 1 when verification fails, and 4 with bad developer credentials", async () => {
    const endpoint = (await h.lp(["webhooks", "create", "--url", `${receiver.url}/hooks`, "--events", "product.created", "--json"])).json();
    receiver.setSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    const failed = await h.lp(["webhooks", "verify", endpoint.id]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("code: verification_failed");
    expect((await h.lp(["webhooks", "list"], { env: { LP_APP_SECRET: "wrong" } })).code).toBe(4);
  });

  it("refuses an unknown event name as the API's validation error", async () => {
    const result = await h.lp(["webhooks", "create", "--url", receiver.url, "--events", "product.exploded"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("code: validation_error");
  });
});
