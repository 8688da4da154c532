import { defineConfig } from "tsup";
import { dtsCompilerOptions, packageConfig } from "../../tsup.package.js";

// The request bodies' types are z.input of @lp/core's schemas: inline them into the declarations, so the
// published client needs only @lp/contract at run time and for its types.
export default defineConfig({ ...packageConfig, dts: { compilerOptions: dtsCompilerOptions, resolve: ["@lp/core"] } });
