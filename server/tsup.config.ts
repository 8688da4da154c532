import { defineConfig } from "tsup";
import { packageConfig } from "../tsup.package.js";

// splitting keeps the dashboard's handler in its own chunk, loaded on the first /_dashboard request.
// No declarations: @lp/server is private, bundled into the CLI, and `@lp/cli/testing`'s declarations and the type
// check resolve it to its sources through tsconfig.json's paths.
export default defineConfig({ ...(packageConfig as object), splitting: true, dts: false });
