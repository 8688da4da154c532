import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

/**
 * Fresh folders under the system's temporary dir for the tests of the calling file, each removed after the
 * test that made it (and after `before`, which closes what was opened on them: a store still writing into a
 * folder being removed is a race, not a cleanup).
 */
export function useTempDirs(before?: () => Promise<void> | void): (name: string) => string {
  const dirs: string[] = [];
  afterEach(async () => {
    await before?.();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (name) => {
    const dir = mkdtempSync(join(tmpdir(), `lp-${name}-`));
    dirs.push(dir);
    return dir;
  };
}
