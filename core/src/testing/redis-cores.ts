import { afterAll, afterEach, beforeAll } from "vitest";
import type { Core } from "../core.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";

/** What {@link useRedisCores} gives a suite. */
export interface RedisCores {
  /** The suite's redis-server (started before its first test). */
  redis(): RedisServer;
  /** Cores a test opens; each is closed, with its stores, after that test. */
  cores: Core[];
}

/**
 * Registers, in the calling `describe`, one real redis-server for the suite and the closing of every core a
 * test pushes to `cores`, so suites of cores sharing a Redis do not each repeat that set-up.
 */
export function useRedisCores(): RedisCores {
  let server: RedisServer | undefined;
  const cores: Core[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterEach(async () => {
    for (const core of cores.splice(0)) {
      await core.close();
      await core.stores.dispose();
    }
  });
  afterAll(async () => {
    await server?.dispose();
  });
  return {
    redis() {
      if (!server) throw new Error("the suite's redis-server is not started yet (use it inside a test or hook)");
      return server;
    },
    cores,
  };
}
