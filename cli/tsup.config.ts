import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };

// splitting keeps every command in its own chunk, so `lp --help` loads none of them.
export default defineConfig({
  entry: ["src/bin.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  clean: true,
  sourcemap: true,
  define: { __LP_VERSION__: JSON.stringify(version) },
  banner: { js: "#!/usr/bin/env node" },
});
