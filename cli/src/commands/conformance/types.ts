/** The areas of the scenario, in the order they run. */
export const AREAS = ["products", "idempotency", "pages", "deployments", "errors", "webhooks"] as const;
export type Area = (typeof AREAS)[number];

/** pass; fail (the instance departs from the contract); skip (not run, with the reason). */
export type Verdict = "pass" | "fail" | "skip";

/** One check of the report: what was asked, what the contract expects, what came, and every departure. */
export interface CheckResult {
  /** `products.create`, `deployments.create (in flight)`, ... */
  id: string;
  area: Area;
  verdict: Verdict;
  /** What the contract expects, in short: `201 with the product`. */
  expected: string;
  /** The status of the check's request (`201`), `no answer`, or `-` when nothing was sent. */
  got: string;
  /** Each departure, naming the status, the field path and the type: `data.preview_image_url missing`. */
  problems: string[];
  /** Why it was skipped, or a remark on a pass. */
  note?: string;
  /** The request of the check, method and path: `POST /v1/accounts/acct_1/products`. */
  request?: string;
}

/** A record the run made, by kind and id; the report names no other record. */
export interface CreatedRecord {
  kind: "product" | "page" | "job" | "deployment" | "webhook_endpoint";
  id: string;
  /** What it is in the scenario: `product (JSON)`, `page (inline product)`. */
  label: string;
  /** Deleted by the scenario itself or by the clean-up (a job or a deployment goes with its page). */
  deleted: boolean;
}

/** What the clean-up did. */
export interface CleanupResult {
  /** `--keep`: nothing was deleted. */
  kept: boolean;
  /** Records deleted by the clean-up (records the scenario deleted itself are not listed). */
  deleted: Array<{ kind: CreatedRecord["kind"]; id: string }>;
  /** Records that could not be deleted, and why. */
  left: Array<{ kind: CreatedRecord["kind"]; id: string; reason: string }>;
}

/** The whole report, as `--json` prints it. */
export interface ConformanceReport {
  /** True when every check passed (skips allowed) and the run was not cut short. */
  ok: boolean;
  target: { api_url: string; account: string; application: string | null };
  /** The marker in every title and URL the run creates: `lpc-1a2b3c4d`. */
  run_id: string;
  started_at: string;
  duration_ms: number;
  counts: { pass: number; fail: number; skip: number };
  checks: CheckResult[];
  /** `check: problem` for every failure, as the summary prints them. */
  failed: string[];
  /** Set when the run stopped early: the step that got no answer, or the interruption. */
  aborted: { step: string; reason: string } | null;
  created: CreatedRecord[];
  cleanup: CleanupResult;
}
