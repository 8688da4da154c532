import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

/** `/healthz` and `/readyz` on each storage: the kind they name, and what they answer once the database refuses queries. */
describe.each(testStorages())("health on %s storage", (storage) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("answers ok and ready with the storage's kind", async () => {
    t = await createTestApp({ storage });
    const health = await t.call("GET", "/healthz", { token: null });
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: "ok", storage });
    const ready = await t.call("GET", "/readyz", { token: null });
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: "ready", storage });
  });

  it("is not ready once the database refuses queries; alive still when the database is in the process", async () => {
    t = await createTestApp({ storage });
    expect((await t.call("GET", "/readyz", { token: null })).status).toBe(200);
    // The query layer's connections end: every query is refused from now on, as by a database that is gone.
    await t.core.database.db.destroy();
    const ready = await t.call("GET", "/readyz", { token: null });
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("1");
    expect(ready.json).toEqual({ status: "unavailable", storage });
    const health = await t.call("GET", "/healthz", { token: null });
    if (storage === "postgres") {
      // A server out of reach: this process can answer nothing, and says so.
      expect(health.status).toBe(503);
      expect(health.json).toEqual({ status: "unavailable", storage });
    } else {
      expect(health.status).toBe(200);
      expect(health.json).toEqual({ status: "ok", storage });
    }
  });
});
