import type { Redis } from "ioredis";
import { refuseWrongDatabase } from "../storage/redis-client.js";

/** Reconnection attempts of the queue's clients: quick at first, then every second (ioredis's default backs off to 2 s). */
export const retryStrategy = (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000);

/** Reports a client's connection trouble once per outage, and its return; never lets an `error` event crash. */
export function watch(client: Redis, role: string, log: (line: string) => void): Redis {
  refuseWrongDatabase(client);
  let down = false;
  const lost = (why: string) => {
    if (down || client.status === "end") return;
    down = true;
    log(`[lp] background ${role}: Redis unreachable (${why}); jobs wait until it is back`);
  };
  client.on("error", (error: unknown) => lost(describe(error)));
  // A restart of Redis may close the connection without an error; `end` is our own disconnect.
  client.on("reconnecting", () => lost("connection closed"));
  client.on("ready", () => {
    if (!down) return;
    down = false;
    log(`[lp] background ${role}: Redis reachable again`);
  });
  return client;
}

/** Resolves when `client` is ready, or after `ms` (the command that follows then fails on its own). */
export function ready(client: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off("ready", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once("ready", done);
  });
}

// Connection trouble is reported once per outage by the client's watcher; BullMQ repeats it on every retry.
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|Connection is closed|Stream isn't writeable|connect/i;

/** Reports an error of the queue or worker that is not connection trouble. */
export function reportOther(role: string, error: unknown, log: (line: string) => void) {
  const message = describe(error);
  // A lost lock is reported with the job's name by the `lockRenewalFailed` handler.
  if (!CONNECTION_ERROR.test(message) && !message.startsWith("could not renew lock")) log(`[lp] background ${role}: ${message}`);
}

/** An error's message, or the thrown value as text. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
