import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Whether Debian's `wrk` is installed (`apt-get install wrk`). */
export async function wrkAvailable(): Promise<boolean> {
  return run("wrk", ["--version"]).then(
    () => true,
    (error: { code?: unknown; stdout?: string }) => error.code !== "ENOENT" && /wrk/.test(error.stdout ?? ""),
  );
}

/**
 * Drives `url` with wrk (one thread, `connections` connections) for `seconds`: a load generator written in
 * C, which takes a small share of the CPU the server is measured on, unlike autocannon in this process.
 * Returns requests per second, the requests answered, and the count of non-2xx/3xx answers and socket errors.
 */
export async function runWrk(url: string, seconds: number, headers: Record<string, string> = {}, connections = 32): Promise<{ rps: number; requests: number; failed: number }> {
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`, ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]), url];
  const { stdout } = await run("wrk", args);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const socketErrors = errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  if (!Number.isFinite(rps)) throw new Error(`wrk printed no Requests/sec:\n${stdout}`);
  return { rps, requests, failed: non2xx + socketErrors };
}
