import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DIR_MODE, FILE_MODE } from "./data-dir-files.js";

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Creates the data dir owner-only (0700), or tightens an existing one that others can read: the folder
 * to 0700, and everything inside it that is looser to 0700 (folders) or 0600 (files). It holds dev
 * credentials, `whsec_` secrets and checkout submissions. The walk runs only when the folder itself was
 * loose (a data dir made by an older version), so a normal start costs one stat. Returns the log line
 * to print, or null when nothing changed. Links inside it are left alone.
 */
export function secureDataDir(dir: string): string | null {
  let mode: number;
  try {
    // The folder itself may be a link to the real one: judge (and tighten) what it points to.
    mode = statSync(dir).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    chmodSync(dir, DIR_MODE);
    return null;
  }
  if ((mode & 0o077) === 0) return null;
  chmodSync(dir, DIR_MODE);
  const changed = tighten(dir);
  return `tightened permissions of ${dir} from ${octal(mode)} to ${octal(DIR_MODE)}${changed ? ` (and ${changed} entries inside it to 0700/0600)` : ""}: it holds credentials and secrets`;
}

function tighten(dir: string): number {
  let changed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    const wanted = entry.isDirectory() ? DIR_MODE : FILE_MODE;
    const mode = lstatSync(path).mode & 0o777;
    if ((mode & ~wanted) !== 0) {
      chmodSync(path, mode & wanted);
      changed += 1;
    }
    if (entry.isDirectory()) changed += tighten(path);
  }
  return changed;
}
