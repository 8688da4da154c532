import type { Driver } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { useTempDirs } from "../testing/temp-dirs.js";
import { openSqliteDrivers } from "../testing/sqlite-drivers.js";

/**
 * The drivers a storage path test runs on, for `describe.each`: memory, and SQLite in a fresh folder named
 * after `name`, closed and removed after each test of the calling file.
 */
export function driverCases(name: string): [string, () => Driver][] {
  const open: Array<() => Promise<void>> = [];
  const tempDir = useTempDirs(async () => void (await Promise.all(open.splice(0).map((close) => close()))));
  return [
    ["memory", () => memoryDriver()],
    [
      "sqlite",
      () => {
        const drivers = openSqliteDrivers(tempDir(name));
        open.push(drivers.close);
        return drivers.records;
      },
    ],
  ];
}
