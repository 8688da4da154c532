import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";
import { collect } from "../../runtime/parse.js";

/** `lp listen`: a local webhook receiver. */
export function register(listen: Command): void {
  listen
    .description("Receive webhooks on loopback: answer challenges, verify signatures, print events")
    .option("--port <port>", "port; 0 picks a free one", "0")
    .option("--secret <whsec>", "verify deliveries with this secret (repeat during a rotation)", collect)
    .option("--register", "create an endpoint on the target instance pointing here; deleted on exit")
    .option("--events <a,b>", "with --register: event types to subscribe to; '*' (the default) is every event")
    .option("--environment <env>", "with --register: production or test")
    .option("--print-secret", "with --register: print the endpoint's secret on stdout")
    .option("--backfill <duration>", "with --register: first replay the events of the last DURATION (10m, 2h, 1d) to the new endpoint (admin key)")
    .option("--tunnel", "reach the receiver through a public quick tunnel (cloudflared, via untun; needs the internet), so a hosted instance can deliver here; --register registers the tunnel's URL")
    .option("--forward-to <url>", "relay each verified delivery with its headers; answer with the target's status")
    .option("--respond <statuses>", "reply to events with these statuses in turn, e.g. 500,500,200 (the last repeats)")
    .option("--delay <duration>", "wait this long before each reply, e.g. 2s")
    .option("--expect <type[:count]>", "exit 0 once COUNT distinct messages of TYPE verified and were answered 2xx (retries count once); repeatable", collect)
    .option("--expect-attempts <type:count>", "exit 0 once COUNT verified attempts of TYPE arrived, whatever the reply; repeatable", collect)
    .option("--timeout <duration>", "stop after this long: exit 1 if expectations are unmet (default 5m with --expect)")
    .option("--json", "print one JSON object per request (NDJSON)");
  examples(listen, [
    "lp listen --register",
    "lp listen --register --events product.created,page.created",
    "lp listen --register --backfill 10m   # the events of the last 10 minutes first, then new ones",
    "lp listen --register --respond 500,500,200 --expect product.created:1 --expect-attempts product.created:3",
    "lp listen --secret whsec_... --port 8787 --respond 500,200",
    "lp listen --register --events deployment.succeeded --expect deployment.succeeded --timeout 2m",
    "lp listen --register --events page.created --forward-to http://localhost:3000/webhooks",
    "lp listen --register --tunnel --api-url https://api.example.com   # a hosted instance delivers to this machine",
  ]).action(lazy(() => import("./listen.js")));
}
