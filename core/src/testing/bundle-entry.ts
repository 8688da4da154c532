import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { isAlive } from "../storage/data-dir-lock.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
// Under core/node_modules: Node resolves the bundle's imports from there up, the root's packages included.
const OUT_DIR = join(ROOT, "core/node_modules/.cache/lp-bundles");
const built = new Map<string, Promise<string>>();

/**
 * Bundles a TypeScript entry (repository-relative) into one ESM file the way the published packages
 * are built: workspace sources inlined, npm dependencies left as imports. The processes that tests and
 * benchmarks start then run on plain `node`, without tsx's loader thread (about 40 MB of RSS, and a second of
 * CPU and two of start-up on a busy machine, at every spawn). Bundled once per process, into a file of its own
 * (test workers bundle side by side), removed when the process exits (or by the next bundling, when it was killed); under core/node_modules so
 * those imports resolve.
 */
export function bundle(entry: string): Promise<string> {
  let out = built.get(entry);
  if (!out) {
    out = (async () => {
      mkdirSync(OUT_DIR, { recursive: true });
      removeOrphans();
      const outfile = join(OUT_DIR, basename(entry).replace(/\.ts$/, `-${process.pid}.mjs`));
      process.once("exit", () => {
        rmSync(outfile, { force: true });
        rmSync(`${outfile}.map`, { force: true });
      });
      await build({
        entryPoints: [join(ROOT, entry)],
        outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node22",
        packages: "external",
        // The workspaces from their sources, as tsconfig.json's paths resolve them: no build needed.
        alias: {
          "@lp/contract/events": join(ROOT, "packages/contract/src/events.ts"),
          "@lp/contract": join(ROOT, "packages/contract/src/index.ts"),
          "@lp/client": join(ROOT, "packages/client/src/index.ts"),
          "@lp/core": join(ROOT, "core/src/index.ts"),
          "@lp/server": join(ROOT, "server/src/index.ts"),
          "@lp/webhooks": join(ROOT, "packages/webhooks/src/index.ts"),
        },
        logLevel: "error",
        // For profiles (bench/profile-get.ts): bundled frames are mapped back to their source files.
        sourcemap: "external",
      });
      return outfile;
    })();
    built.set(entry, out);
  }
  return out;
}

/** Removes the bundles of processes that are gone (a test worker is stopped without its exit handlers running). */
function removeOrphans(): void {
  for (const name of readdirSync(OUT_DIR)) {
    const pid = Number(/-(\d+)\.mjs(?:\.map)?$/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) rmSync(join(OUT_DIR, name), { force: true });
  }
}

