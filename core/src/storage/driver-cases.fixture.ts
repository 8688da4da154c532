import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { afterEach } from "vitest";
import { fsDurableDriver } from "./fs-durable-driver.js";

/**
 * The drivers a storage path test runs on, for `describe.each`: memory, and fs in a fresh folder named after
 * `name`, removed after each test of the calling file.
 */
export function driverCases(name: string): [string, () => Driver][] {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return [
    ["memory", () => memoryDriver()],
    [
      "fs",
      () => {
        const dir = mkdtempSync(join(tmpdir(), `lp-${name}-`));
        dirs.push(dir);
        return fsDurableDriver({ base: dir });
      },
    ],
  ];
}
