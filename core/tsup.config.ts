import { defineConfig } from "tsup";
import { packageConfig } from "../tsup.package.js";

// No declarations: @lp/core is private, bundled into the CLI, and every reader of its types (the type check, the
// declarations of @lp/client and of `@lp/cli/testing`) resolves it to its sources through tsconfig.json's paths.
export default defineConfig({ ...(packageConfig as object), dts: false });
