import { defineConfig } from "tsup";
import { packageConfig } from "../tsup.package.js";

// splitting keeps the dashboard's handler in its own chunk, loaded on the first /_dashboard request.
export default defineConfig({ ...(packageConfig as object), splitting: true });
