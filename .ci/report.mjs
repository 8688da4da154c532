// Counts vitest JSON reports: one line "LABEL: N passed, N failed" per report, then the total as the last
// line. Usage: node .ci/report.mjs LABEL=report.json ... Exits 1 when a report is missing or ran no test.
import { readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let ok = true;
for (const arg of process.argv.slice(2)) {
  const cut = arg.indexOf("=");
  const [label, path] = [arg.slice(0, cut), arg.slice(cut + 1)];
  let report;
  try {
    report = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    console.error(`${label}: vitest wrote no JSON report (${error.message})`);
    failed += 1;
    ok = false;
    continue;
  }
  // A file that fails to load has no failing test of its own: count it as one failure.
  const broken = (report.testResults ?? []).filter((f) => f.status === "failed" && !f.assertionResults.some((a) => a.status === "failed")).length;
  const leg = { passed: report.numPassedTests, failed: report.numFailedTests + broken };
  console.log(`${label}: ${leg.passed} passed, ${leg.failed} failed`);
  if (report.numTotalTests === 0) ok = false;
  passed += leg.passed;
  failed += leg.failed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
