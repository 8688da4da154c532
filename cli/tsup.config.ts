import { readFileSync } from "node:fs";
import { defineConfig, type Options } from "tsup";
import { dtsCompilerOptions } from "../tsup.package.js";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };

// splitting keeps every command in its own chunk, so `lp --help` loads none of them. The internal packages
// (@lp/core, @lp/server, @lp/contract: devDependencies) are bundled in, so users install one package; the
// published @lp/client and @lp/webhooks stay imports. So do the third-party packages, except those
// `lp serve` loads before it listens (zod, h3, srvx, rou3, unstorage, destr, listhen, commander): resolving
// and compiling their hundreds of small modules one by one was most of the time to the first 200.
// Bundled CommonJS code (listhen's, the node-forge stand-in) calls require(): the banner gives each chunk one.
//
// listhen imports node-forge at its top level, for HTTPS certificates lp never asks it for; its 750 KB were a
// tenth of the time to the first 200. `lazyForge` hands listhen a stand-in that loads node-forge (a dependency,
// so it resolves from here) only if a property of it is ever read.
const lazyForge: Plugin = {
  name: "lazy-node-forge",
  setup(build) {
    build.onResolve({ filter: /^node-forge$/ }, (args) => (args.namespace === "lazy-forge" ? { path: "node-forge", external: true } : { path: "node-forge", namespace: "lazy-forge" }));
    build.onLoad({ filter: /.*/, namespace: "lazy-forge" }, () => ({
      contents: `let forge;\nexport default new Proxy({}, { get: (_, key) => (forge ??= require("node-forge"))[key] });\n`,
      loader: "js",
    }));
  },
};

export default defineConfig({
  esbuildPlugins: [lazyForge],
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
