import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** How connections are bounded (DESIGN §14): time to send a head, how many at once, how many per address. */
export interface ConnectionLimits {
  /** A connection that has not sent a complete request head within this long is answered 408 and closed. */
  headersTimeoutMs: number;
  /** How often Node looks for connections past `headersTimeoutMs`. */
  checkIntervalMs: number;
  /** Open connections at most; more are closed as soon as they are accepted. */
  maxConnections: number;
  /** Open connections per client address at most; null for no such cap. */
  maxPerAddress: number | null;
}

/** Time to send a request head, unless `--headers-timeout` says otherwise. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Per-address cap that `--public` sets, unless `--max-connections-per-address` says otherwise. */
export const PUBLIC_MAX_PER_ADDRESS = 64;
/** The descriptor limit assumed where `/proc/self/limits` cannot be read (not Linux). */
const FALLBACK_DESCRIPTOR_LIMIT = 1024;

/**
 * The process's soft limit on open files, read from `/proc/self/limits` (Linux); null when it cannot be
 * read or says "unlimited". `read` is injectable for tests.
 */
export function readDescriptorLimit(read: () => string = () => readFileSync("/proc/self/limits", "utf8")): number | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const line = text.split("\n").find((l) => l.startsWith("Max open files"));
  const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
  return soft && /^\d{1,12}$/.test(soft) ? Number(soft) : null;
}

/**
 * The global connection cap for a descriptor limit: a quarter of the descriptors (at least 64) stay free
 * for what the server opens itself: the database and its media files, uploads, PostgreSQL connections, the log.
 */
export function maxConnectionsFor(descriptorLimit: number | null): number {
  const limit = descriptorLimit ?? FALLBACK_DESCRIPTOR_LIMIT;
  return Math.max(1, limit - Math.max(64, Math.ceil(limit / 4)));
}

// This process's limit, read at its first server: Node raises it as it starts, and nothing lp runs changes it after.
let processLimit: number | null | undefined;
const processDescriptorLimit = () => (processLimit === undefined ? (processLimit = readDescriptorLimit()) : processLimit);

/** The limits `lp serve` applies unless told otherwise: `maxPerAddress` only with `--public`. */
export function defaultConnectionLimits(publicOnly: boolean, descriptorLimit = processDescriptorLimit()): ConnectionLimits {
  return {
    headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
    checkIntervalMs: 1_000,
    maxConnections: maxConnectionsFor(descriptorLimit),
    maxPerAddress: publicOnly ? PUBLIC_MAX_PER_ADDRESS : null,
  };
}

/**
 * Sets the time limits on a server that is already listening (listhen makes the server, without options):
 * the head timeout, Node's 300 s for the whole request (an upload of 200 MiB on a slow link needs it), and
 * the period of Node's connection check. That period is read when the check starts, on `listening`, so the
 * check is started again with it; Node's own start clears the interval it replaces.
 */
export function applyServerTimeouts(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = Math.max(300_000, limits.headersTimeoutMs);
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = limits.checkIntervalMs;
  const restart = server.listeners("listening").find((listener) => listener.name === "setupConnectionsTracking");
  if (!restart) throw new Error("this Node version starts its connection check differently: the head timeout cannot be applied");
  restart.call(server);
}

/**
 * Applies the caps to `server`: the global one through Node's `maxConnections` (its `drop` event counts
 * the refusals), the per-address one by closing a connection that would pass it. Refusals are told through
 * `report` once when they start, then as a count once a minute while they go on, never once per socket.
 * Returns a function that stops the minute timer. (The head timeout is Node's `headersTimeout`, set by
 * {@link applyServerTimeouts}: it answers 408 and closes a connection, silent or half-sent alike.)
 */
export function applyConnectionCaps(server: Server, limits: ConnectionLimits, report: (line: string) => void): () => void {
  const refusals = createRefusalReport(limits, report);
  server.maxConnections = limits.maxConnections;
  server.on("drop", () => refusals.count("global"));
  const cap = limits.maxPerAddress;
  if (cap !== null) {
    const open = new Map<string, number>();
    server.on("connection", (socket: Socket) => {
      const address = socket.remoteAddress ?? "";
      const now = (open.get(address) ?? 0) + 1;
      if (now > cap) {
        refusals.count("address");
        socket.destroy();
        return;
      }
      open.set(address, now);
      socket.once("close", () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      });
    });
  }
  return refusals.stop;
}

function createRefusalReport(limits: ConnectionLimits, report: (line: string) => void, everyMs = 60_000) {
  const counts = { global: 0, address: 0 };
  let timer: ReturnType<typeof setInterval> | null = null;
  const describe = () =>
    [
      counts.global ? `${counts.global} over the cap of ${limits.maxConnections} connections` : "",
      counts.address ? `${counts.address} over the cap of ${limits.maxPerAddress} per client address` : "",
    ]
      .filter(Boolean)
      .join(", ");
  const flush = () => {
    if (counts.global + counts.address === 0) {
      report("[lp] connections are no longer refused");
      clearInterval(timer!);
      timer = null;
      return;
    }
    report(`[lp] refused ${counts.global + counts.address} connections in the last minute (${describe()})`);
    counts.global = counts.address = 0;
  };
  return {
    count(kind: "global" | "address") {
      if (!timer) {
        report(
          kind === "global"
            ? `[lp] refusing connections: ${limits.maxConnections} are open, the most allowed (--max-connections); a count follows once a minute`
            : `[lp] refusing connections: a client address has ${limits.maxPerAddress} open, the most allowed (--max-connections-per-address); a count follows once a minute`,
        );
        timer = setInterval(flush, everyMs);
        timer.unref();
        return;
      }
      counts[kind]++;
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
