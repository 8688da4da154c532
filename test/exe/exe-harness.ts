import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runLp, spawnLp, type LpProcess } from "../../cli/src/e2e/processes.js";

const os = process.platform === "win32" ? "win" : process.platform;
/** The executable `npm run build:exe` builds for this machine. */
export const EXE = fileURLToPath(new URL(`../../build/lp-${os}-${process.arch}${os === "win" ? ".exe" : ""}`, import.meta.url));
/** Whether it is there; without it the suites skip, unless `LP_REQUIRE_EXE=1` (then they fail). */
export const exeBuilt = existsSync(EXE);
if (!exeBuilt && process.env.LP_REQUIRE_EXE === "1") throw new Error(`${EXE} is missing and LP_REQUIRE_EXE=1: run 'npm run build:exe' first.`);

/** Says why a suite is skipped, naming the command that builds what it needs. */
export function warnIfMissing(suite: string): void {
  if (!exeBuilt) console.warn(`[lp] skipping ${suite}: ${EXE} is missing; 'npm run build:exe' builds it (LP_REQUIRE_EXE=1 makes this a failure)`);
}

/**
 * An empty folder holding a copy of the executable, and the environment a machine without Node gives it:
 * HOME in the folder, and a PATH of one empty folder, so no `node` (nor anything else) can be found.
 */
export function createExeSandbox() {
  const dir = mkdtempSync(join(tmpdir(), "lp-exe-"));
  const lp = join(dir, os === "win" ? "lp.exe" : "lp");
  copyFileSync(EXE, lp);
  chmodSync(lp, 0o755);
  mkdirSync(join(dir, "empty-path"));
  const env: Record<string, string> = { HOME: dir, PATH: join(dir, "empty-path"), NO_COLOR: "1", LP_POLL_INTERVAL_MS: "50" };
  return {
    dir,
    lp,
    env,
    /** Starts the copy with `args` in the folder, with the folder's environment and `extra`. */
    spawn: (args: string[], extra: Record<string, string> = {}): LpProcess => spawnLp(args, { executable: lp, env: { ...env, ...extra }, cwd: dir }),
    /** Runs the copy to completion. */
    run: (args: string[], extra: Record<string, string> = {}) => runLp(args, { executable: lp, env: { ...env, ...extra }, cwd: dir }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The `LP_*=...` lines `lp serve --print-env` wrote on stdout, once they are all there. */
export async function servedEnv(serve: LpProcess): Promise<Record<string, string>> {
  await serve.waitFor("stdout", /^LP_APP_SECRET=.*\n/m);
  return Object.fromEntries(serve.stdout.trim().split("\n").map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

/** Width and height of a PNG, from its IHDR chunk; null when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
