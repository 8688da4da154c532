import type { TestProject } from "vitest/node";
import { startRedisServer, type RedisServer } from "../../../core/src/testing/redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The redis-server of the Redis project's run (each test app takes its own key prefix on it). */
    lpTestRedisUrl: string;
  }
}

let server: RedisServer | null = null;

/**
 * Global setup of the `redis` project of vitest.config.ts: one redis-server for the whole run, without
 * fsync (these suites test behaviour; durability has its own tests with `appendfsync always`).
 */
export async function setup(project: TestProject): Promise<void> {
  server = await startRedisServer({ appendfsync: "no" });
  project.provide("lpTestRedisUrl", server.url);
}

/** Stops the server and removes its folder. */
export async function teardown(): Promise<void> {
  await server?.dispose();
}
