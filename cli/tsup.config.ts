import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };

// splitting keeps every command in its own chunk, so `lp --help` loads none of them. The internal packages
// (@lp/core, @lp/server, @lp/contract: devDependencies) are bundled in, so users install one package; the
// published @lp/client and @lp/webhooks and every third-party dependency stay imports.
export default defineConfig({
  entry: { bin: "src/bin.ts", testing: "src/testing.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  clean: true,
  // No source maps: they would carry the sources into the published tarball.
  sourcemap: false,
  noExternal: ["@lp/core", "@lp/server", "@lp/contract"],
  dts: { entry: { testing: "src/testing.ts" }, compilerOptions: { ignoreDeprecations: "6.0" } },
  define: { __LP_VERSION__: JSON.stringify(version) },
  banner: { js: "#!/usr/bin/env node" },
  // What the CLI reads at run time ships inside it, found relative to the modules (never the cwd).
  onSuccess: "node scripts/copy-assets.mjs",
});
