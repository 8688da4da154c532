import autocannon from "autocannon";

/** One load run's outcome. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Answers with a 2xx status. */
  ok: number;
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  url: string;
  seconds: number;
  connections?: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

/** Drives `url` with autocannon for `seconds` and returns requests per second and latency percentiles (ms). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    duration: options.seconds,
    connections: options.connections ?? 10,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ok: result["2xx"],
  };
}

/** A short unmeasured run so JIT, caches and prepared statements are warm before the measured one. */
export async function warmUp(options: LoadOptions): Promise<void> {
  await runLoad({ ...options, seconds: 1 });
}
