import { createReceiver } from "@lp/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";
import { toOptions } from "./replay.js";

describe("webhooks replay: parsing", () => {
  it("takes durations, times and repeated or listed event types", () => {
    expect(toOptions({ args: ["we_1"], flags: { since: "10m", until: "2026-03-01T10:00:00+01:00", eventType: ["product.created,page.created", "product.deleted"] } })).toEqual({
      endpointId: "we_1", since: "10m", until: "2026-03-01T09:00:00.000Z", eventTypes: ["product.created", "page.created", "product.deleted"], json: false,
    });
    expect(() => toOptions({ args: ["dlv_1"], flags: {} })).toThrow(/not an endpoint id/);
    expect(() => toOptions({ args: ["we_1"], flags: { since: "soon" } })).toThrow(/--since/);
  });
});

describe("webhooks replay: against the app", () => {
  let h: Harness;
  afterEach(() => h.close());

  it("schedules the missed events for a late endpoint and prints how many", async () => {
    h = await createHarness();
    await h.app.call("POST", "products", { body: { title: "Before", price: 1, product_type: "service" } });
    const receiver = await createReceiver({ host: "127.0.0.1", port: 0, now: () => h.app.clock.now() });
    const endpoint = (await h.lp(["webhooks", "create", "--url", `${receiver.url}/hooks`, "--events", "product.created,product.deleted", "--json"])).json();
    receiver.setSecret(endpoint.secret);
    const printed = await h.lp(["webhooks", "replay", endpoint.id, "--since", "1h"]);
    expect(printed.stdout).toBe("1\n");
    expect(printed.stderr).toContain(`Scheduled 1 delivery to ${endpoint.id}`);
    const deliveries = (await h.lp(["webhooks", "deliveries", endpoint.id, "--json"])).json();
    expect(deliveries.map((d: { event_type: string }) => d.event_type)).toEqual(["product.created"]);
    expect((await h.lp(["webhooks", "replay", endpoint.id, "--event-type", "product.deleted", "--json"])).json()).toMatchObject({ endpoint_id: endpoint.id, replayed: 0 });
    expect((await h.lp(["webhooks", "replay", "we_00000000000000000000000000000000"])).code).toBe(1);
    await h.app.core.onIdle();
    expect(receiver.deliveries.filter((d) => !d.challenge && d.verified).map((d) => d.event?.type)).toEqual(["product.created"]);
    await receiver.close();
  });
});
