/**
 * The foundation benchmark: `npm run bench` (or `npm run bench -- --quick`). Servers run as child
 * processes on 127.0.0.1 with port 0; autocannon drives them from this process. Prints one table with
 * each figure, its target and whether it was met. Never part of the test suite.
 */
import { availableParallelism, loadavg } from "node:os";
import { createContext } from "./lib/context.js";
import { printTable, type Row } from "./lib/table.js";
import { runReads } from "./scenarios/reads.js";
import { runStartup } from "./scenarios/startup.js";
import { runWrites } from "./scenarios/writes.js";
import { runGetOne } from "./scenarios/get-one.js";
import { runAsyncWork } from "./scenarios/async-work.js";
import { runHostileStrings } from "./scenarios/hostile-strings.js";
import { runAccessLog } from "./scenarios/access-log.js";
import { runRestartList } from "./scenarios/restart-list.js";
import { runCreatedDelivered } from "./scenarios/created-delivered.js";
import { runMixedLoad } from "./scenarios/mixed-load.js";
import { runPostgres } from "./scenarios/postgres.js";

const ctx = createContext(process.argv.slice(2));
const started = performance.now();
const loadBefore = loadavg()[0];
const rows: Row[] = [];
// `--only get-one,startup` runs some scenarios (the full table is `npm run bench` with no flag).
const scenarios: [string, typeof runReads][] = [
  ["get-one", runGetOne],
  ["reads", runReads],
  ["writes", runWrites],
  // lp on PostgreSQL: statements per request, GET and POST under load, the database's CPU per request.
  ["postgres", runPostgres],
  // Products POSTed and their product.created deliveries to a local receiver: sqlite against memory.
  ["created-delivered", runCreatedDelivered],
  ["startup", runStartup],
  // The built CLI's `lp serve` with and without its access log, under wrk and autocannon (build first).
  ["access-log", runAccessLog],
  // GET one, list and POST at once on one sqlite server: the event-loop delay target.
  ["mixed-load", runMixedLoad],
  ["async", runAsyncWork],
  ["hostile-strings", runHostileStrings],
  // The first list of a fresh process on 100k products (after a clean stop and after kill -9), the longest
  // event-loop block through a list by title and the RSS, on sqlite.
  ["restart-list", runRestartList],
];
const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
try {
  for (const [name, run] of scenarios) if (!only || only.includes(name)) rows.push(...(await run(ctx)));
} finally {
  await ctx.cleanup();
}
const seconds = (performance.now() - started) / 1000;
const mode = ctx.quick ? " (--quick: 2 s runs, 20k records stand in for 100k)" : "";
// Other work on the machine skews every figure; the load average says how much there was.
const load = `load average ${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`;
process.stdout.write(`\nlp benchmark${mode}, node ${process.version}, ${seconds.toFixed(0)} s, ${load}\n\n${printTable(rows)}\n`);
const missed = rows.filter((r) => r.met === false).length;
process.stdout.write(`\n${missed === 0 ? "every target met" : `${missed} target(s) not met`}\n`);
