/**
 * Copies what the CLI reads at run time into its dist, so the published package carries it: the sample
 * data (`lp serve --seed`, `lp trigger`: fixtures/*.json and the product images) and the dashboard's UI
 * (built by the server's build into server/dist/dashboard-ui). Run by tsup's onSuccess in cli/.
 */
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("..", import.meta.url));
const repo = fileURLToPath(new URL("../..", import.meta.url));
const dist = `${cli}dist`;

const ui = `${repo}server/dist/dashboard-ui`;
if (!existsSync(`${ui}/manifest.json`)) throw new Error(`${ui} is missing: build the server first (npm run build at the root builds it before the CLI).`);
cpSync(ui, `${dist}/dashboard-ui`, { recursive: true, filter: (src) => !src.endsWith(".map") });

mkdirSync(`${dist}/fixtures/images`, { recursive: true });
for (const name of ["products.json", "trigger.json"]) cpSync(`${repo}fixtures/${name}`, `${dist}/fixtures/${name}`);
for (const name of readdirSync(`${repo}fixtures/images`).filter((n) => n.endsWith(".png"))) {
  cpSync(`${repo}fixtures/images/${name}`, `${dist}/fixtures/images/${name}`);
}
