import { createReceiver } from "@lp/webhooks";
import { describe, expect, it } from "vitest";
import { startLp } from "./start-lp.js";

describe("startLp({ clock: 'manual' })", () => {
  it("stamps with a clock that moves only when told, and sends a retry once an advance passes it", async () => {
    await using lp = await startLp({ clock: "manual", clockStart: "2026-05-01T12:00:00.000Z", webhooks: false });
    expect(lp.clock.mode).toBe("manual");
    expect(lp.clock.now().toISOString()).toBe("2026-05-01T12:00:00.000Z");
    const receiver = await createReceiver({ host: "127.0.0.1", port: 0, respond: [503, 200], now: () => lp.clock.now() });
    try {
      const endpoint = await lp.client.webhooks.create({ url: receiver.url, events: ["product.created"] });
      receiver.setSecret(endpoint.secret);
      const product = await lp.client.products.create({ title: "Apron", price: 42, product_type: "physical" });
      expect(product.created_at).toBe("2026-05-01T12:00:00.000Z");
      // The first attempt fails; its retry is due about 5 s later, and nothing moves until the clock does.
      expect((await lp.clock.advance("1s")).toISOString()).toBe("2026-05-01T12:00:01.000Z");
      expect(receiver.deliveries.filter((d) => !d.challenge).map((d) => d.response?.status)).toEqual([503]);
      await lp.clock.advance("1m");
      expect(receiver.deliveries.filter((d) => !d.challenge).map((d) => d.response?.status)).toEqual([503, 200]);
      const [delivery] = (await lp.client.webhooks.deliveries(endpoint.id)).data;
      expect(delivery).toMatchObject({ status: "succeeded" });
      await expect(lp.clock.set("2026-05-01T00:00:00.000Z")).rejects.toThrow(/only moves forward/);
      expect((await lp.clock.set("2026-06-01T00:00:00.000Z")).toISOString()).toBe("2026-06-01T00:00:00.000Z");
    } finally {
      await receiver.close();
    }
  });

  it("keeps the system clock by default, which refuses to move", async () => {
    await using lp = await startLp({ webhooks: false });
    expect(lp.clock.mode).toBe("system");
    await expect(lp.clock.advance("5m")).rejects.toThrow(/--clock manual/);
  });

  it("delivers to its own inbox at the server's time, hours ahead of the machine's", async () => {
    await using lp = await startLp({ clock: "manual", clockStart: "2030-01-01T00:00:00.000Z" });
    await lp.clock.advance("10h");
    await lp.client.products.create({ title: "Later", price: 1, product_type: "physical" });
    const event = await lp.webhooks.next("product.created");
    expect(event.timestamp).toBe("2030-01-01T10:00:00.000Z");
  });
});
