/**
 * `npm run build:exe [-- --target linux-x64|linux-arm64|darwin-x64|darwin-arm64|win-x64] [--node PATH]`:
 * builds lp as one executable file, `build/lp-<target>` (`.exe` for Windows), with Node inside, for
 * machines that have no Node. It needs `npm ci` (for esbuild and the packages it bundles), not `npm run build`.
 *
 * 1. The CLI is bundled into one ES module (scripts/exe/bundle.mjs).
 * 2. What lp reads at run time goes in as assets under the paths it has in cli/dist: the dashboard's UI
 *    (`dashboard-ui/*`, built here if server/dist has none), the samples (`fixtures/*.json`,
 *    `fixtures/images/*.png`), and the SVG rasteriser's native binary for the target (`resvg.node`).
 * 3. Node's `--build-sea` (Node 25.7 or later: the first with ES module mains) writes the executable. The Node
 *    that builds is `--node PATH` (or `LP_EXE_NODE`), else this one when new enough, else the newest Node 26
 *    `node-<os>-<arch>` package of the npm registry, fetched into build/.cache. A cross build injects into
 *    the target's Node binary from the registry, of the builder's version (the blob must come from the same
 *    Node), without V8's code cache (which only the target's own V8 could make).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { bundleCli } from "./exe/bundle.mjs";
import { buildsModuleSea, fetchPackage, hostTarget, NODE_LINE, seaVersionsOf, TARGETS } from "./exe/targets.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));
const started = performance.now();
const { values } = parseArgs({ options: { target: { type: "string" }, node: { type: "string" } } });
const host = hostTarget();
const target = values.target ?? host;
if (!target || !(target in TARGETS)) fail(`--target must be one of ${Object.keys(TARGETS).join(", ")}${target ? `, not ${target}` : ` (this machine is ${process.platform}-${process.arch})`}.`);
const cross = target !== host;
const cache = join(repo, "build", ".cache");
const work = join(repo, "build", `exe-${target}`);
const output = join(repo, "build", `lp-${target}${target.startsWith("win") ? ".exe" : ""}`);

const { builder, builderVersion, executable } = chooseNode();
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const main = join(work, "lp.mjs");
const bundleBytes = await bundleCli(main, builderVersion);
const assets = collectAssets();
const config = {
  main,
  mainFormat: "module",
  output,
  ...(executable ? { executable } : {}),
  disableExperimentalSEAWarning: true,
  useCodeCache: !cross,
  useSnapshot: false,
  assets,
};
writeFileSync(join(work, "sea.json"), `${JSON.stringify(config, null, 2)}\n`);
rmSync(output, { force: true });
execFileSync(builder, ["--build-sea", join(work, "sea.json")], { stdio: ["ignore", "ignore", "inherit"] });
// macOS runs only signed code: the injection broke Node's signature, so sign it again (ad hoc).
if (target.startsWith("darwin") && process.platform === "darwin") execFileSync("codesign", ["--sign", "-", "--force", output], { stdio: "inherit" });

const seconds = ((performance.now() - started) / 1000).toFixed(1);
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const version = cross ? `(cross-built with Node ${builderVersion})` : execFileSync(output, ["--version"], { encoding: "utf8" }).trim();
process.stdout.write(`built ${output.slice(repo.length)}: ${mb(statSync(output).size)} (bundle ${mb(bundleBytes)}, ${Object.keys(assets).length} assets) in ${seconds} s; ${version}\n`);

/**
 * The Node that runs `--build-sea`, its version, and the target's Node binary when it is another platform's.
 * A Node given (`--node`, `LP_EXE_NODE`) is used as it is; the running one when it builds module mains and,
 * for a cross build, the registry has the target's Node of its version; else the newest release of the
 * registry's line that both this machine's and the target's packages have, fetched.
 */
function chooseNode() {
  const info = TARGETS[target];
  const given = values.node ?? process.env.LP_EXE_NODE;
  let builder = given ?? (buildsModuleSea(process.version) ? process.execPath : null);
  let builderVersion = builder ? execFileSync(builder, ["--version"], { encoding: "utf8" }).trim() : null;
  if (builderVersion && !buildsModuleSea(builderVersion)) fail(`${builder} is Node ${builderVersion}; single executables with an ES module main need Node 25.7 or later.`);
  if (!cross && builder) return { builder, builderVersion, executable: null };
  const targetVersions = cross ? seaVersionsOf(info.node, { anyLine: true }) : null;
  if (builder && targetVersions?.includes(builderVersion.slice(1))) {
    return { builder, builderVersion, executable: join(fetchPackage(info.node, builderVersion.slice(1), cache), info.bin) };
  }
  if (given) fail(`the npm registry has no ${info.node}@${builderVersion.slice(1)} to inject into: give a Node of a version it has (${targetVersions.slice(-3).join(", ")}), or none.`);
  if (!host) fail(`this machine (${process.platform}-${process.arch}) has no Node package on the npm registry; run with --node PATH (Node 25.7 or later).`);
  const hostInfo = TARGETS[host];
  const version = seaVersionsOf(hostInfo.node).filter((v) => !targetVersions || targetVersions.includes(v)).at(-1);
  if (!version) {
    const which = cross ? `both ${hostInfo.node} and ${info.node} have` : `${hostInfo.node} has`;
    fail(`no Node ${NODE_LINE} release that ${which} is on the npm registry; build ${target} on a ${target} machine with Node 25.7 or later (as the release workflow does).`);
  }
  builder = join(fetchPackage(hostInfo.node, version, cache), hostInfo.bin);
  builderVersion = `v${version}`;
  const executable = cross ? join(fetchPackage(info.node, version, cache), info.bin) : null;
  return { builder, builderVersion, executable };
}

/** Asset name to file: everything lp reads at run time, under the paths it has in cli/dist. */
function collectAssets() {
  const assets = {};
  const ui = join(repo, "server", "dist", "dashboard-ui");
  if (!existsSync(join(ui, "manifest.json"))) execFileSync(process.execPath, [join(repo, "server", "scripts", "build-dashboard.mjs")], { stdio: "inherit" });
  for (const name of readdirSync(ui)) if (!name.endsWith(".map")) assets[`dashboard-ui/${name}`] = join(ui, name);
  for (const name of ["products.json", "trigger.json"]) assets[`fixtures/${name}`] = join(repo, "fixtures", name);
  for (const name of readdirSync(join(repo, "fixtures", "images"))) if (name.endsWith(".png")) assets[`fixtures/images/${name}`] = join(repo, "fixtures", "images", name);
  assets["resvg.node"] = resvgBinary();
  return assets;
}

/** The rasteriser's binary for the target, of the version lp depends on: installed, or from the registry. */
function resvgBinary() {
  const { resvg, resvgFile } = TARGETS[target];
  const { version } = JSON.parse(readFileSync(join(repo, "node_modules", "@resvg", "resvg-js", "package.json"), "utf8"));
  const installed = join(repo, "node_modules", resvg, resvgFile);
  if (existsSync(installed) && JSON.parse(readFileSync(join(repo, "node_modules", resvg, "package.json"), "utf8")).version === version) return installed;
  const file = join(fetchPackage(resvg, version, cache), resvgFile);
  if (!existsSync(file)) fail(`${resvg}@${version} has no ${resvgFile}`);
  return file;
}

function fail(message) {
  process.stderr.write(`build:exe: ${message}\n`);
  process.exit(1);
}
