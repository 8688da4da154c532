import { writeFileSync } from "node:fs";
import { join } from "node:path";
import memoryDriver from "unstorage/drivers/memory";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../testing/temp-dirs.js";
import { createStores } from "./create-storage.js";
import { openSqliteDrivers } from "../testing/sqlite-drivers.js";
import { testStorageDriver } from "../testing/storage-contract.js";

testStorageDriver("memory", () => ({ driver: memoryDriver(), dispose: async () => {} }), {
  refusesUnsafeKeys: "keys are Map keys and never become paths; the storage wrapper refuses '..' for it",
  filtersKeysByPrefix: "returns every key; the storage wrapper filters by prefix",
  persistent: "lives in the process's memory only",
  hidesLeftovers: "writes are a Map assignment, which leaves nothing behind",
  leafAndPrefix: true,
});

const tempDir = useTempDirs();

testStorageDriver(
  "sqlite",
  () => {
    const dir = tempDir("driver");
    const first = openSqliteDrivers(dir);
    const others: Array<() => Promise<void>> = [];
    return {
      driver: first.records,
      reopen: () => {
        const again = openSqliteDrivers(dir);
        others.push(again.close);
        return again.records;
      },
      plantLeftover: async () => {
        // What a transaction a kill cut short leaves: nothing SQLite shows, even with a stray file beside it.
        writeFileSync(join(dir, "lp.db.migrating"), "half");
      },
      dispose: async () => {
        await Promise.all([first.close(), ...others.map((close) => close())]);
      },
    };
  },
  {
    refusesUnsafeKeys: true,
    filtersKeysByPrefix: true,
    persistent: true,
    hidesLeftovers: true,
    leafAndPrefix: true,
  },
);

describe("stores", () => {
  it("open memory and SQLite stores, and SQLite needs a folder", () => {
    expect(() => createStores("sqlite")).toThrow(/data directory/);
    expect(createStores("memory").kind).toBe("memory");
  });
});
