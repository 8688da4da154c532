import { defineConfig } from "tsup";

/** The build every library package shares: one ESM entry with declarations, for Node 20. */
export const packageConfig = defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { compilerOptions: { ignoreDeprecations: "6.0" } },
  clean: true,
  // No source maps: the published tarballs carry no sources.
  sourcemap: false,
});
