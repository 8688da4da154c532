import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import memoryDriver from "unstorage/drivers/memory";
import { describe, expect, it } from "vitest";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { createStores, toStorage } from "./create-storage.js";
import { testStorageDriver } from "./storage-contract.js";

testStorageDriver("memory", () => ({ driver: memoryDriver(), dispose: async () => {} }), {
  refusesUnsafeKeys: "keys are Map keys and never become paths; the storage wrapper refuses '..' for it",
  filtersKeysByPrefix: "returns every key; the storage wrapper filters by prefix",
  persistent: "lives in the process's memory only",
  hidesLeftovers: "writes are a Map assignment, which leaves nothing behind",
  leafAndPrefix: true,
});

testStorageDriver(
  "fs-durable",
  () => {
    const base = mkdtempSync(join(tmpdir(), "lp-driver-"));
    return {
      driver: fsDurableDriver({ base }),
      reopen: () => fsDurableDriver({ base }),
      plantLeftover: async () => {
        writeFileSync(join(base, ".tmp", "99999-1"), '{"half":');
        mkdirSync(join(base, "real"), { recursive: true });
      },
      dispose: async () => rmSync(base, { recursive: true, force: true }),
    };
  },
  {
    refusesUnsafeKeys: true,
    filtersKeysByPrefix: true,
    persistent: true,
    hidesLeftovers: true,
    leafAndPrefix: "a key is a file, so it cannot also be the folder of longer keys",
  },
);

describe("fs-durable specifics", () => {
  it("keeps records inside its base and reports a key that is also a folder as an error", async () => {
    const root = mkdtempSync(join(tmpdir(), "lp-driver-"));
    try {
      const storage = toStorage(fsDurableDriver({ base: join(root, "data") }));
      await storage.setItem("a:b:c", { v: 1 });
      await expect(storage.setItem("a:b", { v: 2 })).rejects.toThrow();
      await expect(storage.setItem("a:b:c:d", { v: 3 })).rejects.toThrow();
      expect(await storage.getKeys()).toEqual(["a:b:c"]);
      // Neither failed write left a temporary file behind.
      const { readdirSync } = await import("node:fs");
      expect(readdirSync(join(root, "data", ".tmp"))).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("answers reads of its own records from memory, and follows its own writes, removals and clears", async () => {
    const root = mkdtempSync(join(tmpdir(), "lp-driver-"));
    const file = join(root, "data", "acct", "p1");
    try {
      // Without the log: the second driver below would replay it over the file changed behind the first one's back.
      const storage = toStorage(fsDurableDriver({ base: join(root, "data"), log: false }));
      await storage.setItem("acct:p1", { v: 1 });
      // Changed behind the driver's back (never done while `lp serve` holds the lock): the cache answers.
      writeFileSync(file, JSON.stringify({ v: "disk" }));
      expect(await storage.getItem("acct:p1")).toEqual({ v: 1 });
      const uncached = toStorage(fsDurableDriver({ base: join(root, "data"), cache: false }));
      expect(await uncached.getItem("acct:p1")).toEqual({ v: "disk" });
      await storage.setItem("acct:p1", { v: 2 });
      expect(await storage.getItem("acct:p1")).toEqual({ v: 2 });
      await storage.removeItem("acct:p1");
      expect(await storage.getItem("acct:p1")).toBeNull();
      await storage.setItem("acct:p2", { v: 4 });
      await storage.clear("acct");
      expect(await storage.getItem("acct:p2")).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("opens memory and fs stores, and fs needs a folder", () => {
    expect(() => createStores("fs")).toThrow(/data directory/);
    expect(createStores("memory").kind).toBe("memory");
  });
});
