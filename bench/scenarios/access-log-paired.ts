import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createAccessLog } from "../../server/src/http/access-log.js";
import { processCpuMs } from "../lib/proc-cpu.js";
import { median, fmt, type Row } from "../lib/table.js";
import { runWrk } from "../lib/wrk.js";

/** A served `lp serve` as `access-log.ts` starts it. */
interface Target {
  url: string;
  headers: Record<string, string>;
  pid?: number;
}

/**
 * The log's cost measured with both servers under load at the same time: one wrk (-t1 -c16) each, started
 * together, so whatever else runs on the machine during a round weighs on both alike. Per round: each server's
 * CPU time per answered request (from /proc) and its share of the requests; the cost is the median over the
 * rounds of on / --quiet - 1. Taking turns, as the other rows do, leaves each run its own neighbours.
 */
export async function pairedLogCost(on: Target, quiet: Target, seconds: number, rounds: number, dir: string): Promise<Row[]> {
  if (on.pid === undefined || quiet.pid === undefined || processCpuMs(on.pid) === null) return [];
  const results: Array<{ cpu: number; rps: number }> = [];
  const quietUs: number[] = [];
  let failed = 0;
  for (let round = 0; round < rounds; round++) {
    const before = { on: processCpuMs(on.pid)!, quiet: processCpuMs(quiet.pid)! };
    const [a, b] = await Promise.all([runWrk(on.url, seconds, on.headers, 16), runWrk(quiet.url, seconds, quiet.headers, 16)]);
    const after = { on: processCpuMs(on.pid)!, quiet: processCpuMs(quiet.pid)! };
    failed += a.failed + b.failed;
    if (a.requests === 0 || b.requests === 0) continue;
    const usOn = ((after.on - before.on) * 1000) / a.requests;
    const usQuiet = ((after.quiet - before.quiet) * 1000) / b.requests;
    results.push({ cpu: usOn / usQuiet - 1, rps: 1 - a.rps / b.rps });
    quietUs.push(usQuiet);
  }
  if (results.length === 0) return [];
  const own = logWorkPerRequest(dir);
  // The least CPU a GET took in any round is the closest to its own cost: other work only adds to it.
  const get = Math.min(...quietUs);
  const cpu = median(results.map((r) => r.cpu));
  const rps = median(results.map((r) => r.rps));
  const list = (key: "cpu" | "rps") => results.map((r) => fmt(r[key] * 100, 1)).join("/");
  return [
    { scenario: "wrk, both at once: server CPU per request, log on / --quiet - 1", measured: `${fmt(cpu * 100, 1)}% (rounds ${list("cpu")}%)`, target: "<= 5%", met: cpu <= 0.05 && failed === 0 },
    { scenario: "wrk, both at once: access log cost (1 - on / --quiet req/s)", measured: `${fmt(rps * 100, 1)}% (rounds ${list("rps")}%)`, target: "<= 5%", met: rps <= 0.05 && failed === 0 },
    {
      scenario: "access log's own work per request / server CPU of a GET (--quiet, least of the rounds)",
      measured: `${fmt(own, 2)} / ${fmt(get, 1)} µs: ${fmt((own / get) * 100, 1)}%`,
      target: "<= 5%",
      met: own / get <= 0.05,
    },
  ];
}

/**
 * CPU µs per request of the access log itself, in this process: the server's `createAccessLog`, 16 entries
 * recorded per turn (a turn's worth under wrk -c32) and written to a file with one synchronous write, as
 * `lp serve 2> file` does. The least of five runs of 100,000 entries.
 */
function logWorkPerRequest(dir: string): number {
  const fd = openSync(join(dir, "micro.log"), "w");
  try {
    const log = createAccessLog((lines) => writeSync(fd, `${lines}\n`));
    const path = "/v1/accounts/acct_dev/products/prod_0123456789abcdef01234567";
    const runs: number[] = [];
    for (let run = 0; run < 5; run++) {
      const start = process.cpuUsage();
      for (let i = 0; i < 100_000; i++) {
        log.record("GET", path, 200, 0.05 * (i % 40), "req_0123456789abcdef01234567");
        if (i % 16 === 15) log.flush();
      }
      log.flush();
      const used = process.cpuUsage(start);
      runs.push((used.user + used.system) / 100_000);
    }
    return Math.min(...runs);
  } finally {
    closeSync(fd);
  }
}
