import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { postgresAvailable, postgresSkipReason } from "./core/src/testing/postgres-server.js";
import { SlowFirstSequencer } from "./vitest.sequencer.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// The API suites (routes, the auth, error and idempotency plumbing) run a second time on PostgreSQL
// (LP_TEST_STORAGE=postgres: every createTestApp() in a schema of its own on one server). The fuzzers and the
// OpenAPI checks stay on memory only: they test validation and the document, not storage, and the fuzzers
// alone would add over a minute.
const POSTGRES_SUITES = ["server/src/routes/*.test.ts", "server/src/http/{auth,errors,idempotency}.test.ts", "server/src/write-faults.test.ts"];
const NOT_ON_POSTGRES = ["server/src/routes/*.property.test.ts", "server/src/routes/openapi*.test.ts"];
if (!postgresAvailable) console.warn(postgresSkipReason("the API suites on PostgreSQL (vitest project 'postgres')"));

// Suites in Chromium: their own project, whose global setup starts one browser for the run.
const BROWSER_SUITES = ["**/src/**/*.browser.test.ts", "test/**/*.browser.test.ts"];
const excluded = [...configDefaults.exclude, "**/dist/**"];

/*
 * Workers: many suites wait on sockets, child processes, PostgreSQL and Chromium rather than compute, so more workers
 * than cores pays even on two cores. `LP_TEST_WORKERS` overrides it.
 *
 * Isolation: the suites of `default` and `postgres` share their worker's module cache (`isolate: false`): importing the
 * core and the server again for each of some 240 files cost more CPU than half the run's tests. No suite keeps state
 * in a module that another one reads; each builds its own app, core, server and temp dirs. Browser suites keep a
 * fresh worker each, and share one Chromium.
 */
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
    exclude: excluded,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: Number(process.env.LP_TEST_WORKERS) || 3,
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "default",
          include: ["**/src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...excluded, ...BROWSER_SUITES],
          isolate: false,
          // `LP_TEST_STORAGE=postgres npx vitest run --project default <file>` runs a file's apps on PostgreSQL too.
          globalSetup: process.env.LP_TEST_STORAGE === "postgres" ? ["server/src/testing/postgres-global-setup.ts"] : [],
        },
      },
      {
        extends: true,
        test: { name: "browser", include: BROWSER_SUITES, globalSetup: ["server/src/testing/chromium-global-setup.ts"] },
      },
      ...(postgresAvailable
        ? [
            {
              extends: true as const,
              test: {
                name: "postgres",
                include: POSTGRES_SUITES,
                exclude: [...excluded, ...NOT_ON_POSTGRES],
                isolate: false,
                env: { LP_TEST_STORAGE: "postgres" },
                globalSetup: ["server/src/testing/postgres-global-setup.ts"],
              },
            },
          ]
        : []),
    ],
  },
});
