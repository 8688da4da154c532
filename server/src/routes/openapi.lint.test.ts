import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

const run = promisify(execFile);
const redocly = fileURLToPath(new URL("../../../node_modules/.bin/redocly", import.meta.url));

interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer: string }[];
}

/** Runs Redocly's `recommended` ruleset, a linter lp did not write, on a document; returns its problems. */
async function lint(dir: string, doc: unknown): Promise<LintProblem[]> {
  const file = join(dir, "openapi.json");
  await writeFile(file, JSON.stringify(doc));
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
  // The linter exits 1 when it finds errors; its JSON report is on stdout either way.
  const { stdout } = await run(redocly, ["lint", "--extends", "recommended", "--format", "json", file], { env, timeout: 60_000 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
  );
  return (JSON.parse(stdout) as { problems: LintProblem[] }).problems;
}

describe("/v1/openapi.json under Redocly's recommended ruleset", () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await createTestApp();
    dir = await mkdtemp(join(tmpdir(), "lp-openapi-lint-"));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("has no errors", async () => {
    const problems = await lint(dir, t.openapi);
    const errors = problems.filter((p) => p.severity === "error");
    expect(errors.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    // The one warning left is the spec's own: /pages/jobs/{job_id} and /pages/{id}/deployments can both match.
    expect(problems.filter((p) => p.severity === "warn").map((p) => p.ruleId)).toEqual(["no-ambiguous-paths"]);
  });

  it("is not a rubber stamp: a webhook operation without `security: []` is an error", async () => {
    const broken = structuredClone(t.openapi) as unknown as { webhooks: Record<string, { post: { security?: unknown } }> };
    delete broken.webhooks["product.created"].post.security;
    const problems = await lint(dir, broken);
    expect(problems.filter((p) => p.severity === "error").map((p) => p.ruleId)).toEqual(["security-defined"]);
  });
});
