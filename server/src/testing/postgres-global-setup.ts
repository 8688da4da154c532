import type { TestProject } from "vitest/node";
import { startPostgresServer, type PostgresServer } from "../../../core/src/testing/postgres-server.js";
import "../../../core/src/testing/test-postgres.js";

let server: PostgresServer | null = null;

/**
 * Global setup of the `postgres` project of vitest.config.ts (and of a run with `LP_TEST_STORAGE=postgres`):
 * one PostgreSQL server for the whole run, without fsync (these suites test behaviour; the crash and fault
 * tests start servers of their own). Each test app takes a schema of its own on it (test-postgres.ts).
 */
export async function setup(project: TestProject): Promise<void> {
  server = await startPostgresServer({ fsync: false });
  project.provide("lpTestPostgresUrl", server.url());
}

/** Stops the server and removes its folder. */
export async function teardown(): Promise<void> {
  await server?.dispose();
}
