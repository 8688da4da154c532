import { Redis } from "ioredis";

/**
 * A plain connection to a test Redis, for what a suite does to it from outside lp: `CONFIG SET maxmemory`,
 * writing a damaged record by hand, reading raw keys. Reached by path from other packages' tests.
 */
export function redisAdmin(url: string) {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  return {
    call: (command: string, ...args: (string | number)[]): Promise<unknown> => client.call(command, ...args),
    close: () => void client.disconnect(),
  };
}
