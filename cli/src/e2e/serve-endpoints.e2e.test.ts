import { createReceiver } from "@lp/webhooks";
import { describe, expect, it } from "vitest";
import { startServe } from "./processes.js";

describe("lp serve (built): webhook endpoints per application", () => {
  it("takes --max-endpoints, answers 403 quota_exceeded over it, and delivers one event to every endpoint", { timeout: 60_000 }, async () => {
    const N = 250;
    const s = await startServe(["--max-endpoints", String(N)]);
    const receiver = await createReceiver();
    try {
      const basic = `Basic ${Buffer.from(`${s.env.LP_APP_ID}:${s.env.LP_APP_SECRET}`).toString("base64")}`;
      const create = (i: number) =>
        fetch(`${s.env.LP_API_URL}/v1/developer/webhook-endpoints`, {
          method: "POST",
          headers: { authorization: basic, "content-type": "application/json" },
          body: JSON.stringify({ url: `${receiver.url}/hooks/${i}`, events: ["product.created"] }),
        });
      for (let i = 0; i < N; i += 25) {
        const statuses = await Promise.all(Array.from({ length: 25 }, async (_, j) => (await create(i + j)).status));
        expect(statuses).toEqual(Array(25).fill(201));
      }
      const over = await create(N);
      expect(over.status).toBe(403);
      expect((await over.json()).error).toMatchObject({ code: "quota_exceeded", details: { limit: N, used: N } });

      const product = await fetch(`${s.env.LP_API_URL}/v1/accounts/${s.env.LP_ACCOUNT}/products`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.env.LP_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "For everyone", price: 1, product_type: "service" }),
      });
      expect(product.status).toBe(201);
      const events = await receiver.expect({ type: "product.created", count: N, within: 30_000 });
      expect(events).toHaveLength(N);
      const paths = new Set(receiver.deliveries.filter((d) => !d.challenge).map((d) => d.path));
      expect(paths.size).toBe(N);
    } finally {
      await receiver.close();
      expect(await s.stop()).toBe(0);
    }
  });
});
