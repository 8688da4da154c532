import { Agent, request } from "node:http";

/** Latency figures of sequential requests, in ms. */
export interface LatencyResult {
  p50: number;
  p99: number;
  rps: number;
  count: number;
  failures: number;
}

/** One GET over a kept-alive connection; resolves with its status once the body is read. */
function get(url: URL, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", headers, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Sends GETs one after another for `seconds` and reports percentiles with sub-millisecond precision
 * (autocannon's histogram rounds to whole milliseconds, too coarse for a 1 ms listing).
 */
export async function sampleLatency(target: string, headers: Record<string, string>, seconds: number): Promise<LatencyResult> {
  const url = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failures = 0;
  const end = performance.now() + seconds * 1000;
  try {
    while (performance.now() < end) {
      const t0 = performance.now();
      const status = await get(url, headers, agent);
      times.push(performance.now() - t0);
      if (status !== 200) failures++;
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99), rps: times.length / seconds, count: times.length, failures };
}
