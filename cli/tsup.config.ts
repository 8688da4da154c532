import { defineConfig } from "tsup";

// splitting keeps every command in its own chunk, so `lp --help` loads none of them.
export default defineConfig({
  entry: ["src/bin.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  clean: true,
  sourcemap: true,
  banner: { js: "#!/usr/bin/env node" },
});
