import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isJournalMarker } from "./fs-key-journal.js";
import { createStores, type Stores } from "./create-storage.js";

describe("fs batch: one group commit", () => {
  let dir: string;
  let stores: Stores;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lp-group-"));
    stores = createStores("fs", dir);
  });
  afterEach(async () => {
    await stores.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  // The key journal's marker lives there too; it is no write's leftover.
  const tmpFiles = () => readdirSync(join(dir, "data", ".tmp")).filter((name) => !isJournalMarker(name));

  it("applies sets and removals in order, readable at once and by the next start", async () => {
    await stores.data.setItem("webhooks:pending:d1", { id: "d1" });
    await stores.batch([
      { key: "webhooks:deliveries:ep1:d1", value: { id: "d1", status: "succeeded" } },
      { key: "webhooks:pending:d1", remove: true },
      { key: "webhooks:deliveries:ep1:d2", value: { id: "d2", status: "pending" } },
      { key: "webhooks:pending:d2", value: { id: "d2" } },
      { key: "webhooks:deliveries:ep1:d2", value: { id: "d2", status: "failed" } },
    ]);
    expect(await stores.data.getItem("webhooks:deliveries:ep1:d1")).toEqual({ id: "d1", status: "succeeded" });
    expect(await stores.data.getItem("webhooks:deliveries:ep1:d2")).toEqual({ id: "d2", status: "failed" });
    expect(await stores.data.getKeys("webhooks:pending")).toEqual(["webhooks:pending:d2"]);
    // A key walk waits for the files of acknowledged writes; none leaves a temporary file.
    await stores.data.getKeys("records");
    expect(tmpFiles()).toEqual([]);

    const next = createStores("fs", dir);
    expect(await next.data.getItem("webhooks:deliveries:ep1:d2")).toEqual({ id: "d2", status: "failed" });
    expect(await next.data.getKeys("webhooks:deliveries:ep1")).toHaveLength(2);
    await next.dispose();
  });

  it("a group with a record the tree refuses is refused whole before it is logged: nothing applied, nothing pending", async () => {
    await stores.data.setItem("records:keep", { v: "old" });
    // A folder where a record should go.
    mkdirSync(join(dir, "data", "records", "blocked", "inner"), { recursive: true });
    const batch = stores.batch([
      { key: "records:a1", value: { v: 1 }, chain: 0 },
      { key: "records:blocked", value: { v: 2 }, chain: 0 },
      { key: "records:keep", value: { v: "new" }, chain: 1 },
    ]);
    await expect(batch).rejects.toThrow(/EISDIR/);
    expect(await stores.data.getItem("records:a1")).toBeNull();
    expect(await stores.data.getItem("records:keep")).toEqual({ v: "old" });
    // A key walk waits for the files of acknowledged writes; none leaves a temporary file.
    await stores.data.getKeys("records");
    expect(tmpFiles()).toEqual([]);
    // Nor does the next start find it in the log.
    const next = createStores("fs", dir);
    expect(await next.data.getItem("records:a1")).toBeNull();
    await next.dispose();
  });

  it("two chains that touch the same record are applied as one, in the order given", async () => {
    await stores.batch([
      { key: "records:shared", value: { v: "first" }, chain: 0 },
      { key: "records:other", value: { v: 1 }, chain: 1 },
      { key: "records:shared", value: { v: "second" }, chain: 1 },
      { key: "records:shared", remove: true, chain: 2 },
      { key: "records:shared", value: { v: "last" }, chain: 0 },
    ]);
    expect(await stores.data.getItem("records:shared")).toEqual({ v: "last" });
    expect(await stores.data.getItem("records:other")).toEqual({ v: 1 });
    // A key walk waits for the files of acknowledged writes; none leaves a temporary file.
    await stores.data.getKeys("records");
    expect(tmpFiles()).toEqual([]);
  });

});
