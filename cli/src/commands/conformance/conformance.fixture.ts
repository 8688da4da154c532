import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Lp } from "../../start-lp/start-lp.js";
import { main } from "../../main.js";
import type { ContextDeps } from "../../runtime/context.js";
import { createFakeIo, type FakeIo, type FakeIoOptions } from "../../testing/fake-io.js";
import type { ConformanceReport } from "./types.js";

/** The outcome of one in-process `lp conformance` run. */
export interface ConformanceRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The `--json` report. */
  report(): ConformanceReport;
}

/**
 * `lp conformance` in process against `lp` (a real server on a port), with its credentials in the
 * environment, a private config folder and working directory, and polls every 50 ms (an unbounded
 * override, as for --wait). `onStart` gets the fake IO before the run starts (to signal it).
 */
export function createConformanceRunner(lp: Lp<any>) {
  const home = mkdtempSync(join(tmpdir(), "lp-conformance-"));
  async function run(args: string[], options: FakeIoOptions & { deps?: ContextDeps; onStart?: (fake: FakeIo) => void } = {}): Promise<ConformanceRun> {
    const fake = createFakeIo({ cwd: home, ...options, env: { ...lp.env, LP_POLL_INTERVAL_MS: "50", XDG_CONFIG_HOME: join(home, "config"), ...options.env } });
    options.onStart?.(fake);
    const code = await main(["conformance", ...args], fake.io, options.deps ?? {});
    return { code, stdout: fake.stdout, stderr: fake.stderr, report: () => JSON.parse(fake.stdout) as ConformanceReport };
  }
  return { run, home, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/** What is left in the account of a run, found by its marker (never by the report's own list). */
export async function leftovers(lp: Lp<any>, runId: string) {
  const products = (await lp.client.products.list({ q: runId, per_page: 100 })).data.map((p) => p.id);
  const pages = (await lp.client.pages.list({ q: runId, per_page: 100 })).data.map((p) => p.id);
  const endpoints = (await lp.client.webhooks.list({ per_page: 100 })).data.filter((e) => e.url.includes(runId)).map((e) => e.id);
  return { products, pages, endpoints };
}

/** The run id a run announced on stderr. */
export function runIdOf(stderr: string): string {
  const match = /lp conformance (lpc-[0-9a-f]+) against/.exec(stderr);
  if (!match) throw new Error(`no run id announced in:\n${stderr}`);
  return match[1];
}
