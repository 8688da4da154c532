/**
 * The single executable's main: the whole CLI in one ES module (cli/src/exe/entry.ts and everything it
 * imports, third-party packages included), as a Node single executable runs one script and its `require()`
 * loads built-in modules only. What differs from the npm package's build (cli/tsup.config.ts):
 *
 * - no chunks: a dynamic import of a command becomes a call into the same file;
 * - `@resvg/resvg-js` is cli/src/exe/resvg-asset.ts, which loads the rasteriser's binary from an asset;
 * - pg (the PostgreSQL client of `--storage postgres`) is bundled too, loaded at the first connection only;
 * - `require` is Node's built-in modules (`process.getBuiltinModule`), for the bundled CommonJS code.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { lazyModule } from "../../cli/scripts/lazy-module.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** Points every import of `@resvg/resvg-js` at the module that loads its binary from the executable's assets. */
const resvgFromAsset = {
  name: "resvg-from-asset",
  setup(build) {
    build.onResolve({ filter: /^@resvg\/resvg-js$/ }, () => ({ path: `${repo}cli/src/exe/resvg-asset.ts` }));
  },
};

const REQUIRE_BUILTINS = [
  "const require = (id) => {",
  "  const builtin = process.getBuiltinModule(id);",
  '  if (builtin === undefined) throw new Error(`${id} is not inside this executable`);',
  "  return builtin;",
  "};",
].join("\n");

/**
 * Bundles the CLI into `outfile` for Node `nodeVersion` ("v26.12.1"); returns the bundle's size in bytes.
 */
export async function bundleCli(outfile, nodeVersion) {
  const { version } = JSON.parse(readFileSync(`${repo}cli/package.json`, "utf8"));
  const result = await build({
    entryPoints: [`${repo}cli/src/exe/entry.ts`],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: `node${nodeVersion.replace(/^v/, "")}`,
    tsconfig: `${repo}tsconfig.json`,
    minifyWhitespace: true,
    minifySyntax: true,
    // The licences of the bundled packages stay with their code, at the end of the file.
    legalComments: "eof",
    define: { __LP_VERSION__: JSON.stringify(version) },
    banner: { js: REQUIRE_BUILTINS },
    plugins: [lazyModule("node-forge", { bundle: true }), resvgFromAsset],
    metafile: true,
    logLevel: "warning",
  });
  return Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
}
