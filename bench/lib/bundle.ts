import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { build } from "esbuild";
import { ROOT } from "./root.js";

// Under core/node_modules: Node resolves the bundle's imports from there up, so the core's own copies
// (ioredis, nested because bullmq pins another version) are found as well as the root's packages.
const OUT_DIR = join(ROOT, "core/node_modules/.cache/lp-bench");
const built = new Map<string, Promise<string>>();

/**
 * Bundles a TypeScript entry (repository-relative) into one ESM file the way the published packages
 * are built: workspace sources inlined, npm dependencies left as imports. Measured servers then run
 * on plain `node`, without tsx's loader thread (about 40 MB of RSS and a second of start-up).
 * The output lives under core/node_modules so those imports resolve.
 */
export function bundle(entry: string): Promise<string> {
  let out = built.get(entry);
  if (!out) {
    out = (async () => {
      mkdirSync(OUT_DIR, { recursive: true });
      const outfile = join(OUT_DIR, basename(entry).replace(/\.ts$/, ".mjs"));
      await build({
        entryPoints: [join(ROOT, entry)],
        outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        alias: {
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
