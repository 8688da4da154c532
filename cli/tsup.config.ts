import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";
import { dtsCompilerOptions } from "../tsup.package.js";
import { lazyModule } from "./scripts/lazy-module.mjs";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };

// splitting keeps every command in its own chunk, so `lp --help` loads none of them. The internal packages
// (@lp/core, @lp/server, @lp/contract: devDependencies) are bundled in, so users install one package; the
// published @lp/client and @lp/webhooks stay imports. So do the third-party packages, except those
// `lp serve` loads before it listens (zod, h3, srvx, rou3, unstorage, destr, listhen, commander): resolving
// and compiling their hundreds of small modules one by one was most of the time to the first 200.
// Bundled CommonJS code (listhen's, the node-forge stand-in) calls require(): the banner gives each chunk one.
//
// node-forge, which listhen imports at its top level for HTTPS certificates lp never asks for, loads on
// first use (scripts/lazy-module.mjs), from the package's dependency.
export default defineConfig({
  esbuildPlugins: [lazyModule("node-forge", { bundle: false })],
  esbuildOptions(options) {
    options.minifyWhitespace = true;
    options.minifySyntax = true;
  },
  entry: { bin: "src/bin.ts", testing: "src/testing.ts" },
  format: ["esm"],
  target: "node22",
  platform: "node",
  splitting: true,
  clean: true,
  // No source maps: they would carry the sources into the published tarball.
  sourcemap: false,
  noExternal: ["@lp/core", "@lp/server", "@lp/contract", "zod", "h3", "srvx", "rou3", "unstorage", "destr", "listhen", "commander", "node-forge"],
  dts: { entry: { testing: "src/testing.ts" }, compilerOptions: dtsCompilerOptions },
  define: { __LP_VERSION__: JSON.stringify(version) },
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __lpCreateRequire } from \"node:module\";\nconst require = __lpCreateRequire(import.meta.url);" },
  // What the CLI reads at run time ships inside it, found relative to the modules (never the cwd).
  onSuccess: "node scripts/copy-assets.mjs",
});
