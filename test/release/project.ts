import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { layoutFrom, type LockEntry, type Root } from "./offline-lockfile.js";

const run = promisify(execFile);
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The packages a user installs from npm, by workspace folder. */
export const PUBLISHED = ["cli", "packages/client", "packages/contract", "packages/webhooks"] as const;

/** What a test project's `devDependencies` add to the tarballs: the tools its own tests and type check use. */
const TOOLS = ["vitest", "typescript"];

interface Manifest {
  name: string;
  version: string;
  license?: string;
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
}

const manifestOf = (folder: string) => JSON.parse(readFileSync(join(repoRoot, folder, "package.json"), "utf8")) as Manifest;

/** Fails loudly when a package was not built (CI runs `npm run build` before the tests). */
export function assertBuilt(): void {
  for (const file of ["cli/dist/bin.js", "cli/dist/testing.d.ts", "cli/dist/fixtures/trigger.json", "cli/dist/dashboard-ui/manifest.json", "packages/client/dist/index.d.ts"]) {
    if (!existsSync(join(repoRoot, file))) throw new Error(`${file} is missing: run 'npm run build' at the repository root before the release rehearsal.`);
  }
}

/** A packed package: its tarball and the paths it holds. */
export interface Packed {
  tarball: string;
  files: string[];
}

/** Runs `npm pack` in each published workspace; returns each tarball and its file list, by package name. */
export async function packAll(into: string): Promise<Record<string, Packed>> {
  const packed: Record<string, Packed> = {};
  for (const folder of PUBLISHED) {
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", into], { cwd: join(repoRoot, folder) });
    const [result] = JSON.parse(stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
    packed[result!.name] = { tarball: join(into, result!.filename), files: result!.files.map((f) => f.path) };
  }
  return packed;
}

/**
 * The `allowScripts` the README tells users to add to their package.json (its JSON block that has one), or
 * none when it says there is nothing to allow.
 */
export function readmeAllowScripts(): Record<string, boolean> {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  for (const [, block] of readme.matchAll(/```json\n([\s\S]*?)```/g)) {
    if (block!.includes('"allowScripts"')) return (JSON.parse(block!) as { allowScripts: Record<string, boolean> }).allowScripts;
  }
  return {};
}

/**
 * An empty project outside the repository with the tarballs and the tools installed, as `npm install`
 * would in a user's repository. The lockfile is derived from the repository's (same versions), and the
 * install runs with `--prefer-offline`: packages come from npm's cache, which the repository's `npm ci`
 * filled; only what the cache lacks (npm's answer to a peer range it wants to re-check) asks the registry.
 * Install scripts run as npm 12 will run them: only those the README's `allowScripts` allows, and any other
 * fails the install (`--strict-allow-scripts`). No package lp installs compiles anything: the embedded store is
 * Node's own `node:sqlite`. Resolves with the folder and the install's output.
 */
export async function createProject(packed: Record<string, Packed>): Promise<{ dir: string; install: string }> {
  const dir = mkdtempSync(join(tmpdir(), "lp-release-"));
  const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
  const dependencies: Record<string, string> = {};
  const entries: Record<string, LockEntry> = {};
  const roots: Root[] = TOOLS.map((name) => ({ name, from: "" }));
  for (const folder of PUBLISHED) {
    const pkg = manifestOf(folder);
    const spec = `file:${packed[pkg.name]!.tarball}`;
    dependencies[pkg.name] = spec;
    entries[`node_modules/${pkg.name}`] = { version: pkg.version, resolved: spec, license: pkg.license, engines: pkg.engines, dependencies: pkg.dependencies, ...(pkg.bin ? { bin: pkg.bin } : {}) };
    for (const name of Object.keys(pkg.dependencies ?? {})) if (!name.startsWith("@lp/")) roots.push({ name, from: folder });
  }
  const rootPkg = manifestOf(".") as Manifest & { devDependencies: Record<string, string> };
  const devDependencies = Object.fromEntries(TOOLS.map((name) => [name, rootPkg.devDependencies[name]!]));
  // `npm test` is the project's own suite: the README's CI step ends with it.
  const scripts = { test: "vitest run --reporter=default --reporter=json --outputFile=vitest.json" };
  const project = { name: "lp-release-rehearsal", version: "1.0.0", private: true, type: "module", scripts, dependencies, devDependencies, allowScripts: readmeAllowScripts() };
  const packages = { "": project, ...entries, ...layoutFrom(lock.packages, roots, (name) => name.startsWith("@lp/")) };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(project, null, 2)}\n`);
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify({ name: project.name, version: project.version, lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
  try {
    const { stdout, stderr } = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--strict-allow-scripts", "--foreground-scripts"], { cwd: dir, env: npmEnv() });
    return { dir, install: stdout + stderr };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The environment of commands run in the project: nothing of the caller's LP_* or npm workspace. */
export function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith("LP_") && !key.startsWith("npm_")) env[key] = value;
  return { ...env, NO_COLOR: "1", ...extra };
}

/** Runs a command in the project; resolves with its exit code and output. */
export function exec(dir: string, command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: dir, env: npmEnv(env), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A long-running command of the project, with its stderr so far and a way to wait for a line of it. */
export function start(dir: string, command: string, args: string[], env: Record<string, string> = {}, detached = false) {
  const child: ChildProcess = spawn(command, args, { cwd: dir, env: npmEnv(env), stdio: ["ignore", "pipe", "pipe"], detached });
  let stderr = "";
  let stdout = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    get stderr() {
      return stderr;
    },
    get stdout() {
      return stdout;
    },
    /** Resolves once `pattern` appears on stderr; rejects if the process ends first. */
    waitFor(pattern: RegExp): Promise<RegExpExecArray> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (!match) return;
          child.stderr!.off("data", check);
          resolve(match);
        };
        child.stderr!.on("data", check);
        check();
        void exited.then((code) => reject(new Error(`${command} ${args.join(" ")} exited (${code}) before ${pattern}:\n${stderr}`)));
      });
    },
  };
}
