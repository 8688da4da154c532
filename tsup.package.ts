import { fileURLToPath } from "node:url";
import { defineConfig } from "tsup";

/**
 * The compiler options of every declaration pass. tsconfig.json's paths (`@lp/*` to sources) are relative to the
 * repository root; it has no baseUrl (TypeScript 7, which runs the type check, has none), and tsup would otherwise
 * resolve them from the package's folder. `ignoreDeprecations`: baseUrl is deprecated in TypeScript 6, whose API
 * tsup's declaration pass uses.
 */
export const dtsCompilerOptions = { baseUrl: fileURLToPath(new URL(".", import.meta.url)), ignoreDeprecations: "6.0" };

/** The build every library package shares: one ESM entry with declarations, for Node 22.13 and newer. */
export const packageConfig = defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node22",
  platform: "node",
  dts: { compilerOptions: dtsCompilerOptions },
  clean: true,
  // No source maps: the published tarballs carry no sources.
  sourcemap: false,
});
