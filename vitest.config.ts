import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { redisAvailable, redisSkipReason } from "./core/src/testing/redis-server.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// The API suites (routes, the auth, error and idempotency plumbing, writes refused by a full store) run a
// second time on Redis (LP_TEST_STORAGE=redis: every createTestApp() on its own key prefix of one
// redis-server). The fuzzers and the OpenAPI checks stay on memory only: they test validation and the
// document, not storage, and the fuzzers alone would add over a minute.
const REDIS_SUITES = ["server/src/routes/*.test.ts", "server/src/http/{auth,errors,idempotency}.test.ts", "server/src/write-faults.test.ts"];
const NOT_ON_REDIS = ["server/src/routes/*.property.test.ts", "server/src/routes/openapi*.test.ts"];
if (!redisAvailable) console.warn(redisSkipReason("the API suites on Redis (vitest project 'redis')"));

export default defineConfig({
  resolve: {
    alias: {
      // Before "@lp/contract", which would otherwise match the subpath as a prefix.
      "@lp/contract/events": here("packages/contract/src/events.ts"),
      "@lp/contract": here("packages/contract/src/index.ts"),
      "@lp/core": here("core/src/index.ts"),
      "@lp/server": here("server/src/index.ts"),
      "@lp/client": here("packages/client/src/index.ts"),
      "@lp/webhooks": here("packages/webhooks/src/index.ts"),
    },
  },
  test: {
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "default", include: ["**/src/**/*.test.ts", "test/**/*.test.ts"] } },
      ...(redisAvailable
        ? [
            {
              extends: true as const,
              test: {
                name: "redis",
                include: REDIS_SUITES,
                exclude: [...configDefaults.exclude, "**/dist/**", ...NOT_ON_REDIS],
                env: { LP_TEST_STORAGE: "redis" },
                globalSetup: ["server/src/testing/redis-global-setup.ts"],
              },
            },
          ]
        : []),
    ],
  },
});
