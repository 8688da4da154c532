import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { bundle } from "../../../core/src/testing/bundle-entry.js";

/** The repository root. */
export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** A server process started by {@link spawnServe}. */
export interface ServeProcess {
  child: ChildProcess;
  /** The `KEY=value` lines it printed: LP_API_URL, LP_ACCOUNT, LP_TOKEN, LP_APP_ID, LP_APP_SECRET, LP_ADMIN_KEY. */
  env: Record<string, string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `server/src/testing/serve-main.ts` and resolves once it printed its `KEY=value` lines. */
export async function spawnServe(env: Record<string, string>): Promise<ServeProcess> {
  // The server from its sources, bundled once per test process (plain `node`: no loader thread at every spawn).
  const child = spawn(process.execPath, [await bundle("server/src/testing/serve-main.ts")], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr!.on("data", (chunk) => (err += chunk));
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (!out.includes("LP_ADMIN_KEY=")) return;
      const lines = out.trim().split("\n");
      const vars = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
      resolve({ child, env: vars, exit });
    });
    void exit.then(({ code }) => reject(new Error(`serve exited early with ${code}: ${err}`)));
  });
}
