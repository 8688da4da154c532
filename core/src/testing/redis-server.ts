import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The redis-server binary the tests start: `LP_REDIS_SERVER`, else the one on PATH (Debian's `redis-server`). */
export const redisServerBinary = process.env.LP_REDIS_SERVER ?? "redis-server";

/** Whether a redis-server binary can be run here. */
export const redisAvailable: boolean = (() => {
  const probe = spawnSync(redisServerBinary, ["--version"], { encoding: "utf8" });
  return probe.status === 0 && /Redis server/.test(probe.stdout);
})();

if (!redisAvailable && process.env.LP_REQUIRE_REDIS) {
  throw new Error(`redis-server is required (LP_REQUIRE_REDIS) but "${redisServerBinary}" cannot be run: apt-get install redis-server`);
}

/** Why a Redis suite is skipped, printed once per suite that skips. */
export function redisSkipReason(suite: string): string {
  return `[lp] skipping ${suite}: redis-server not found (Debian package "redis-server"; set LP_REDIS_SERVER to another binary)`;
}

/** A redis-server started for a test, on a free port, in its own temporary directory. */
export interface RedisServer {
  port: number;
  url: string;
  dir: string;
  /** Stops the server (SIGTERM, or SIGKILL when `hard`), keeping its directory so it can be restarted. */
  stop(options?: { hard?: boolean }): Promise<void>;
  /** Starts it again on the same port and directory (the AOF replays what was acknowledged). */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  dispose(): Promise<void>;
}

/** Options of {@link startRedisServer}. */
export interface StartRedisOptions {
  /** `appendfsync` policy; `always` by default so that an acknowledged write survives SIGKILL. */
  appendfsync?: "always" | "everysec" | "no";
  /** More redis-server arguments (`--requirepass`, `--databases`). */
  args?: string[];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function launch(port: number, dir: string, options: StartRedisOptions): Promise<ChildProcess> {
  const args = [
    "--port", String(port),
    "--bind", "127.0.0.1",
    "--dir", dir,
    "--save", "",
    "--appendonly", "yes",
    "--appendfsync", options.appendfsync ?? "always",
    "--daemonize", "no",
    "--loglevel", "warning",
    ...(options.args ?? []),
  ];
  const child = spawn(redisServerBinary, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const onExit = (code: number | null) => reject(new Error(`redis-server exited with ${code}: ${output}`));
    child.once("exit", onExit);
    const poll = () => {
      const ping = spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" });
      // A server with `--requirepass` answers NOAUTH: it is up all the same.
      const ready = ping.status === 0 ? /^(PONG|(\(error\) )?NOAUTH)/.test(ping.stdout.trim()) : tcpProbe(port);
      if (ready) {
        child.off("exit", onExit);
        resolve(child);
      } else if (Date.now() > deadline) {
        child.kill("SIGKILL");
        reject(new Error(`redis-server did not answer on port ${port} within 10 s: ${output}`));
      } else setTimeout(poll, 25);
    };
    setTimeout(poll, 25);
  });
}

// Without redis-cli (the Debian package ships both, but LP_REDIS_SERVER may name a lone binary), a plain
// connection attempt tells whether the port is open.
function tcpProbe(port: number): boolean {
  const probe = spawnSync(process.execPath, ["-e", `require("net").connect(${port},"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))`]);
  return probe.status === 0;
}

/** Starts a redis-server with AOF on, on a free port, in a fresh temporary directory. */
export async function startRedisServer(options: StartRedisOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "lp-redis-"));
  const port = await freePort();
  let child: ChildProcess | null = await launch(port, dir, options);
  const stop = async ({ hard = false } = {}) => {
    const current = child;
    child = null;
    // Exited already, by itself or by a signal (then exitCode stays null and no 'exit' will come again).
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
    current.kill(hard ? "SIGKILL" : "SIGTERM");
    await exited;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    dir,
    stop,
    async restart() {
      await stop();
      child = await launch(port, dir, options);
    },
    async dispose() {
      await stop({ hard: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
