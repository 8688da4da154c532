import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.package.js";

// `events` is a second entry without zod: the CLI's `lp listen` and `lp trigger` read the catalogue from it
// and start without loading a schema library.
export default defineConfig({ ...(packageConfig as object), entry: ["src/index.ts", "src/events.ts"] });
