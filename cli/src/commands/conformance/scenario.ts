import { deploymentsArea } from "./areas/deployments.js";
import { errorsArea } from "./areas/errors.js";
import { idempotencyArea } from "./areas/idempotency.js";
import { pagesArea } from "./areas/pages.js";
import { productsArea } from "./areas/products.js";
import { webhooksArea } from "./areas/webhooks.js";
import { createRecorder, Interrupted, NoAnswer } from "./checks.js";
import { cleanUp } from "./cleanup.js";
import { createLedger } from "./ledger.js";
import type { Scenario, ScenarioDeps, ScenarioOptions } from "./scenario-context.js";
import type { Area, ConformanceReport } from "./types.js";

/** The areas in the order they run: each takes the records the ones before it made. */
const AREA_RUNS: Array<[Area, (s: Scenario) => Promise<void>]> = [
  ["products", productsArea],
  ["idempotency", idempotencyArea],
  ["pages", pagesArea],
  ["deployments", deploymentsArea],
  ["errors", errorsArea],
  ["webhooks", webhooksArea],
];

/** What the report says about the target, besides the checks. */
export interface RunInfo {
  apiUrl: string;
  keep: boolean;
  startedAt: number;
}

/**
 * Runs the scenario against the instance, then cleans up (also after a silent instance, an unexpected
 * error or Ctrl-C), and returns the whole report.
 */
export async function runScenario(opts: ScenarioOptions, deps: ScenarioDeps, info: RunInfo): Promise<ConformanceReport> {
  const recorder = createRecorder(deps.contract);
  const ledger = createLedger();
  const accountPrefix = `/v1/accounts/${encodeURIComponent(opts.account)}`;
  const s: Scenario = {
    ...deps,
    opts,
    check: recorder.check,
    skipped: recorder.skipped,
    ledger,
    state: {},
    accountPath: (rest) => `${accountPrefix}${rest}`,
    title: (name) => `lp conformance ${opts.runId}: ${name}`,
  };
  let aborted: ConformanceReport["aborted"] = null;
  let reached = 0;
  try {
    for (const [area, run] of AREA_RUNS) {
      reached++;
      if (area === "webhooks" && !opts.webhooks) {
        recorder.skipped("webhooks", "webhooks", "an endpoint verified, deliveries signed, rotation, deliveries list", "--skip-webhooks");
        continue;
      }
      deps.progress(`Checking ${area}...`);
      await run(s);
    }
  } catch (error) {
    const step = recorder.results.at(-1)?.id ?? "start";
    if (error instanceof NoAnswer) aborted = { step: error.step, reason: error.message };
    else if (error instanceof Interrupted) aborted = { step, reason: "interrupted" };
    else aborted = { step, reason: `unexpected error: ${(error as Error)?.message ?? String(error)}` };
    for (const [area] of AREA_RUNS.slice(reached)) recorder.skipped(area, area, "the area's checks", `not run: the run stopped at ${aborted.step}`);
  }

  const missing = [...deps.http.withoutRequestId];
  recorder.results.push({
    id: "responses (X-Request-Id)",
    area: "errors",
    verdict: missing.length ? "fail" : "pass",
    expected: "every answer carries X-Request-Id",
    got: missing.length ? `missing in ${missing.length} check(s)` : "all",
    problems: missing.length ? [`header X-Request-Id missing on the answers of ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` and ${missing.length - 5} more` : ""}`] : [],
  });

  deps.progress(info.keep ? "Keeping what the run made (--keep)." : "Cleaning up...");
  const cleanup = await cleanUp(s, info.keep);
  const checks = recorder.results;
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const c of checks) counts[c.verdict]++;
  return {
    ok: counts.fail === 0 && aborted === null,
    target: { api_url: info.apiUrl, account: opts.account, application: opts.application },
    run_id: opts.runId,
    started_at: new Date(info.startedAt).toISOString(),
    duration_ms: Math.max(0, deps.now() - info.startedAt),
    counts,
    checks,
    failed: checks.filter((c) => c.verdict === "fail").flatMap((c) => c.problems.map((p) => `${c.id}: ${p}`)),
    aborted,
    created: ledger.toRecords(),
    cleanup,
  };
}
