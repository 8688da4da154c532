import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp serve`: the whole API on this machine. */
export function register(serve: Command): void {
  serve
    .description("Run the landing page service locally (API, admin API, media, builder, sites)")
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .option("--port <port>", "port; 0 picks a free one", "4010")
    .option("--storage <kind>", "sqlite (the embedded store: one SQLite database in --data-dir; fs is another name for it), memory (forgotten at exit), or postgres (state shared by every process on one PostgreSQL database)", "sqlite")
    .option("--database-url <url>", "with --storage postgres: the database, e.g. postgres://lp@127.0.0.1:5432/lp (default LP_DATABASE_URL)")
    .option("--data-dir <dir>", "where the embedded store (lp.db) and credentials.json live (with postgres: credentials.json only)", ".lp")
    .option("--public-url <url>", "base of public addresses (media, builder, sites); default the listening URL")
    .option("--no-admin", "turn the /_admin API off")
    .option("--clock <mode>", "system, or manual: a clock that moves only with `lp clock advance` (POST /_admin/clock); memory and sqlite storage only", "system")
    .option("--retry-schedule <list>", "webhook retry delays, e.g. 0,1s,2s")
    .option("--deploy-delay <duration>", "spread each deployment over this long, to exercise polling")
    .option("--generation-delay <duration>", "pause per page generation step")
    .option("--public", "refuse webhook URLs on loopback and private addresses, like the hosted service")
    .option("--event-retention <duration>", "how long events are kept for lp webhooks replay, e.g. 1h or 30d", "7d")
    .option("--max-endpoints <n>", "most webhook endpoints per application", "100")
    .option("--headers-timeout <duration>", "close a connection that has not sent a whole request head within this long", "10s")
    .option("--max-connections <n>", "most open connections (default: below the descriptor limit, with a reserve for storage)")
    .option("--max-connections-per-address <n>", "most open connections per client address, or off (default: 64 with --public, else off)")
    .option("--checkout-rate-limit <rate>", "checkout posts per client address, e.g. 30/min, or off (default: 30/min with --public, else off)")
    .option("--seed [file]", "load products from fixtures/products.json (or FILE) into an empty dev account")
    .option("--print-env", "print LP_API_URL=... lines for the credentials on stdout once ready")
    // Not `--env-file`: Node 20 reads that flag anywhere on the command line, even after the script.
    .option("--write-env <file>", "once ready, write those LP_* lines to FILE (atomically); removed on stop")
    .option("--pid-file <file>", "once ready, write this process's id to FILE, for kill; removed on stop")
    .option("--drain-timeout <duration>", "on SIGINT/SIGTERM, how long in-flight requests and background work may take to finish", "10s")
    .option("--open", "once ready, open the dashboard (a one-time login URL) in the default browser")
    .option("--quiet", "no access log");
  examples(serve, [
    "lp serve",
    "lp serve --storage memory --port 0 --write-env .lp.env --pid-file .lp.pid &   # both appear once ready",
    "until [ -s .lp.env ]; do sleep 0.2; done; set -a; . ./.lp.env; set +a   # later: kill \"$(cat .lp.pid)\"",
    "lp serve --storage postgres --database-url postgres://lp@127.0.0.1/lp --port 4011   # run several: one service",
    "LP_ADMIN_KEY=secret lp serve --seed --retry-schedule 0,1s,2s --deploy-delay 6s",
    "lp serve --storage memory --clock manual   # then: lp clock advance 5m",
  ]).action(lazy(() => import("./serve.js")));
}
