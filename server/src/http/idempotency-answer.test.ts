import { createStores } from "@lp/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../../../core/src/testing/temp-dirs.js";
import { createTestApp } from "../testing/test-app.js";

const tempDir = useTempDirs();
const lamp = { title: "Lamp", price: 10, product_type: "physical" };

/**
 * An Idempotency-Key's marker commits in the same transaction as the request's change, before the answer is
 * stored: when the process stops in between (here the answer's own write never lands, as at a kill), the next
 * start knows the change was made, and the key never runs the request a second time.
 */
describe("an idempotent request whose answer was lost after its change was made (SQLite)", () => {
  it("is not run again: the retry is told the change is kept, and one product exists", async () => {
    const dir = tempDir("idem-answer");
    // The first run: every write goes through except the answer's own (a lone write of the key's record),
    // which never lands, as when the process is killed at that moment.
    const stores = createStores("sqlite", dir);
    const setItem = stores.data.setItem.bind(stores.data);
    let answering!: () => void;
    const answerStarted = new Promise<void>((resolve) => (answering = resolve));
    stores.data.setItem = ((key: string, value: unknown, opts?: Record<string, unknown>) => {
      if (!key.startsWith("idem:")) return setItem(key, value as never, opts);
      answering();
      return new Promise(() => {});
    }) as typeof stores.data.setItem;
    const first = await createTestApp({ stores });
    const account = first.account;
    void first.call("POST", "products", { body: lamp, headers: { "idempotency-key": "k-lost" } });
    // The answer is written only after the change and the key's marker were committed together.
    await answerStarted;
    expect((await first.call("GET", "products")).json.data).toHaveLength(1);

    const again = await createTestApp({ dataDir: dir });
    try {
      expect(again.account).toBe(account);
      const retry = await again.call("POST", "products", { body: lamp, headers: { "idempotency-key": "k-lost" } });
      expect(retry.status).toBe(409);
      expect(retry.json.error.message).toContain("made its change, but lp stopped before it could store the answer");
      expect((await again.call("GET", "products")).json.data).toHaveLength(1);
      // Another body with the same key is still another request.
      expect((await again.call("POST", "products", { body: { ...lamp, title: "Other" }, headers: { "idempotency-key": "k-lost" } })).status).toBe(422);
      // A new key runs as usual.
      expect((await again.call("POST", "products", { body: lamp, headers: { "idempotency-key": "k-new" } })).status).toBe(201);
    } finally {
      await again.close();
    }
  });

  it("is refused whole when the change cannot be written: nothing is kept and the retry runs", async () => {
    const dir = tempDir("idem-refused");
    const stores = createStores("sqlite", dir);
    const batch = stores.batch.bind(stores);
    let refuse = true;
    stores.batch = (ops, fence) => (refuse && ops.some((op) => op.key.startsWith("idem:")) ? Promise.reject(Object.assign(new Error("ENOSPC: injected"), { code: "ENOSPC" })) : batch(ops, fence));
    const app = await createTestApp({ stores });
    try {
      const refused = await app.call("POST", "products", { body: lamp, headers: { "idempotency-key": "k-full" } });
      expect(refused.status).toBe(507);
      expect((await app.call("GET", "products")).json.data).toHaveLength(0);
      refuse = false;
      const retry = await app.call("POST", "products", { body: lamp, headers: { "idempotency-key": "k-full" } });
      expect(retry.status).toBe(201);
      expect((await app.call("POST", "products", { body: lamp, headers: { "idempotency-key": "k-full" } })).headers.get("idempotent-replayed")).toBe("true");
      expect((await app.call("GET", "products")).json.data).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
