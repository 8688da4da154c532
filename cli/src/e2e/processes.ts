import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI: these tests run what users run. */
export const BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));

/** Fails loudly when the CLI was not built (CI runs `npm run build` before the tests). */
export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run 'npm run build' at the repository root before these tests.`);
}

/** A private folder, and an environment with nothing of the caller's LP_* or config in it. */
export function createSandbox() {
  const dir = mkdtempSync(join(tmpdir(), "lp-e2e-"));
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1", LP_POLL_INTERVAL_MS: "50" };
  return { dir, env, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A running `lp` process with its output so far and ways to wait on it. */
export interface LpProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the match once `pattern` appears on the stream; rejects if the process exits first. */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/** The `lp` that `npm install` links at the repository root, as the README runs it. */
export const SHIM = fileURLToPath(new URL("../../../node_modules/.bin/lp", import.meta.url));

/** How {@link spawnLp} runs lp. */
export interface SpawnOptions {
  env: Record<string, string>;
  cwd: string;
  stdin?: string;
  /** Run the linked `node_modules/.bin/lp`, as a shell would. */
  shim?: boolean;
  /** Run this file instead of Node: the single executable (`npm run build:exe`). */
  executable?: string;
  nofile?: number;
}

/**
 * Spawns `node cli/dist/bin.js ...args`, or with `shim` the linked `node_modules/.bin/lp` executed
 * directly, as a shell would, or the `executable` given. Stdin is a pipe, left open unless `stdin` is given.
 * `nofile` runs it under `ulimit -n` (soft and hard), as a small container or a careful operator would.
 */
export function spawnLp(args: string[], options: SpawnOptions): LpProcess {
  let [command, argv] = options.executable ? [options.executable, args] : options.shim ? [SHIM, args] : [process.execPath, [BIN, ...args]];
  if (options.nofile !== undefined) [command, argv] = ["/bin/sh", ["-c", `ulimit -n ${Math.floor(options.nofile)} && exec "$0" "$@"`, command, ...argv]];
  const child = spawn(command, argv, { env: options.env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  return watchProcess(child, `lp ${args.join(" ")}`);
}

/**
 * Collects a child's stdout and stderr and lets a test wait for a pattern on either; `label` names the
 * process in the error when it exits first.
 */
export function watchProcess(child: ChildProcess, label: string): LpProcess {
  const out = { stdout: "", stderr: "" };
  const waiters = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  for (const name of ["stdout", "stderr"] as const) {
    child[name]!.setEncoding("utf8").on("data", (chunk: string) => {
      out[name] += chunk;
      for (const check of waiters) check();
    });
  }
  return {
    child,
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    waitFor(stream, pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out[stream]);
          if (!match) return;
          waiters.delete(check);
          resolve(match);
        };
        waiters.add(check);
        check();
        void exited.then((code) => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          reject(new Error(`${label} exited (${code}) before ${pattern} on ${stream}.\nstdout: ${out.stdout}\nstderr: ${out.stderr}`));
        });
      });
    },
    exited,
  };
}

/** Runs `lp ...args` to completion. */
export async function runLp(args: string[], options: Omit<SpawnOptions, "nofile">) {
  const proc = spawnLp(args, { ...options, stdin: options.stdin ?? "" });
  const code = await proc.exited;
  return { code, stdout: proc.stdout, stderr: proc.stderr, json: () => JSON.parse(proc.stdout) };
}

/**
 * `lp serve --storage memory --port 0 --print-env` in a sandbox, ready, with its env lines parsed.
 * `accessLog` keeps the access log (on the process's stderr) instead of `--quiet`; `nofile` sets `ulimit -n`.
 */
export async function startServe(extra: string[] = [], options: { accessLog?: boolean; nofile?: number } = {}) {
  assertBuilt();
  const sandbox = createSandbox();
  const quiet = options.accessLog ? [] : ["--quiet"];
  const proc = spawnLp(["serve", "--storage", "memory", "--port", "0", "--print-env", ...quiet, ...extra], { env: sandbox.env, cwd: sandbox.dir, nofile: options.nofile });
  await proc.waitFor("stderr", /^Ready at /m);
  await proc.waitFor("stdout", /^LP_APP_SECRET=.*\n/m);
  const lpEnv = Object.fromEntries(proc.stdout.trim().split("\n").map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
  return {
    proc,
    sandbox,
    /** The sandbox env plus the server's LP_* lines: what a script would `source`. */
    env: { ...sandbox.env, ...lpEnv } as Record<string, string>,
    lp: (args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}) => runLp(args, { env: { ...sandbox.env, ...lpEnv, ...opts.env }, cwd: sandbox.dir, stdin: opts.stdin }),
    async stop() {
      if (proc.child.exitCode === null) proc.child.kill("SIGTERM");
      const code = await proc.exited;
      sandbox.remove();
      return code;
    },
  };
}

/** What {@link startServe} returns. */
export type Served = Awaited<ReturnType<typeof startServe>>;
