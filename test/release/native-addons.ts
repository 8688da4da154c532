import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { LockEntry } from "./offline-lockfile.js";

const run = promisify(execFile);

/**
 * Native addons in the rehearsal's project. A user's install runs their install scripts, which download a
 * prebuilt binary for the user's Node (prebuild-install) or compile one. Nothing can be downloaded here, and
 * compiling again what the repository already compiled for the same Node ABI costs a minute or more per
 * addon, so the repository's own build for this Node's ABI is offered to the package's install script as a
 * local prebuilt binary: the script runs as it does for a user, unpacks it and loads it to check it.
 * `.ci/native-addons.json` names the addons that compile from source and the binding file each loads.
 */
export const NATIVE_ADDONS = JSON.parse(readFileSync(new URL("../../.ci/native-addons.json", import.meta.url), "utf8")) as Record<string, { binding: string }>;

/** The name of the folder (`node-v<ABI>-<platform>-<arch>`) where `.ci/node24 place` keeps one build per ABI. */
export const abiFolder = `node-v${process.versions.modules}-${process.platform}-${process.arch}`;

/** The packages of a lockfile's `packages` that are native addons of {@link NATIVE_ADDONS}: name and version. */
export function addonsIn(packages: Record<string, LockEntry>): Array<{ name: string; version: string }> {
  const found = new Map<string, string>();
  for (const [path, entry] of Object.entries(packages)) {
    const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    if (path.includes("node_modules/") && NATIVE_ADDONS[name] && entry.version) found.set(`${name}@${entry.version}`, name);
  }
  return [...found].map(([spec, name]) => ({ name, version: spec.slice(name.length + 1) }));
}

/**
 * The repository's build of addon `name` for this Node's ABI: the ABI's own folder (CI keeps one per ABI
 * there) or else `build/Release` (what `npm install` made), checked by loading it in a child process.
 */
export async function repoBuild(repoRoot: string, name: string, version: string): Promise<string> {
  const { binding } = NATIVE_ADDONS[name]!;
  const folder = join(repoRoot, "node_modules", name);
  const installed = (JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { version: string }).version;
  if (installed !== version) throw new Error(`The project installs ${name}@${version}, the repository's node_modules has ${installed}: run npm install at the root.`);
  const candidates = [join(folder, "lib/binding", abiFolder, binding), join(folder, "build/Release", binding)].filter((file) => existsSync(file));
  for (const file of candidates) {
    const loaded = await run(process.execPath, ["-e", "process.dlopen({ exports: {} }, process.argv[1])", file]).then(() => true, () => false);
    if (loaded) return file;
  }
  throw new Error(
    `The repository has no build of ${name} that loads on Node ${process.version} (ABI ${process.versions.modules}): tried ${candidates.join(", ") || "nothing"}. ` +
      `Run the rehearsal with the Node that ran npm install, or as .ci/run does (.ci/node24 place).`,
  );
}

/**
 * Writes each addon's prebuilt tarball (named as its install script looks for it) from the repository's
 * build into a folder, and returns the project files that point prebuild-install at it (`.prebuild-installrc`;
 * nothing when there is no addon).
 */
export async function offerPrebuilts(repoRoot: string, addons: Array<{ name: string; version: string }>, into: string): Promise<Record<string, string>> {
  if (addons.length === 0) return {};
  for (const { name, version } of addons) {
    const stage = mkdtempSync(join(tmpdir(), "lp-prebuilt-"));
    try {
      mkdirSync(join(stage, "build/Release"), { recursive: true });
      copyFileSync(await repoBuild(repoRoot, name, version), join(stage, "build/Release", NATIVE_ADDONS[name]!.binding));
      const tarball = join(into, `${name}-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
      await run("tar", ["-czf", tarball, "-C", stage, "build"]);
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  // prebuild-install reads this file from the folders above the package it installs.
  return { ".prebuild-installrc": `local-prebuilds=${into}\n` };
}

/** Writes files into the project folder. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}
