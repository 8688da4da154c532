import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      "@lp/contract": here("packages/contract/src/index.ts"),
      "@lp/core": here("core/src/index.ts"),
      "@lp/server": here("server/src/index.ts"),
      "@lp/client": here("packages/client/src/index.ts"),
      "@lp/webhooks": here("packages/webhooks/src/index.ts"),
    },
  },
  test: {
    include: ["**/src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
