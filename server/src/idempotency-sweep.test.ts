import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_TTL_MS } from "../../core/src/idempotency/idempotency.js";
import { createTestApp } from "./testing/test-app.js";

describe.each(["memory", "sqlite"] as const)("the sweep of expired Idempotency-Key records on %s", (storage) => {
  it("removes the records whose 24 hours are over and keeps the others, which still replay", async () => {
    const app = await createTestApp({ storage });
    try {
      const post = (key: string, title: string) => app.call("POST", "products", { body: { title, product_type: "physical", price: 2 }, headers: { "idempotency-key": key } });
      expect((await post("old", "Old")).status).toBe(201);
      app.clock.advance(IDEMPOTENCY_TTL_MS / 2);
      expect((await post("new", "New")).status).toBe(201);
      const stored = () => app.core.database.db.selectFrom("idempotency_keys").select("key").where("account_id", "=", app.creds.account_id).execute();
      expect(await stored()).toHaveLength(2);
      // Nothing has expired yet.
      expect(await app.core.idempotency.sweep()).toBe(0);
      app.clock.advance(IDEMPOTENCY_TTL_MS / 2);
      expect(await app.core.idempotency.sweep()).toBe(1);
      expect(await stored()).toHaveLength(1);
      const replay = await post("new", "New");
      expect(replay.status).toBe(201);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      // The swept key runs again, as an expired one did before the sweep.
      const again = await post("old", "Old");
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBeNull();
      expect(await stored()).toHaveLength(2);
      app.clock.advance(IDEMPOTENCY_TTL_MS);
      expect(await app.core.idempotency.sweep()).toBe(2);
      expect(await stored()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
