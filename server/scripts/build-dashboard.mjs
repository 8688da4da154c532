/**
 * Bundles the dashboard's UI (server/src/dashboard/ui) into dist/dashboard-ui with hashed file names, and
 * writes manifest.json naming the entry's script and style. Run by `npm run build` after tsup.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/dashboard-ui`;
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  entryPoints: { main: `${root}src/dashboard/ui/main.ts`, style: `${root}src/dashboard/ui/styles.css` },
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: true,
  entryNames: "[name]-[hash]",
  outdir,
  metafile: true,
  logLevel: "warning",
});
const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => f.endsWith(".js"));
const css = outputs.find((f) => f.endsWith(".css"));
if (!js || !css) throw new Error(`dashboard build: expected a .js and a .css output, got ${outputs.join(", ")}`);
writeFileSync(`${outdir}/manifest.json`, `${JSON.stringify({ js, css })}\n`);
process.stdout.write(`dashboard UI: ${js}, ${css}\n`);
