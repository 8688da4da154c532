import type { CheckCaseId, CheckExchange, CheckExpectation, CheckVerdict } from "../check-receiver-types.js";

/** Beyond this, lp's endpoint verification has given up (its deliveries wait 15 s). */
export const SLOW_MS = 10_000;

/** A verdict and the sentence that explains it. */
export interface Judgement {
  verdict: CheckVerdict;
  note: string;
}

/** Why accepting each must-refuse case is unsafe, and what to fix. */
const ACCEPTED: Partial<Record<CheckCaseId, string>> = {
  "tampered-body": "accepted a body changed after signing: verify the signature over the exact bytes received",
  "wrong-secret": "accepted a signature made with another secret: is the signature checked at all?",
  "no-signature": "accepted a request without a signature: refuse requests whose webhook-signature is missing",
  "malformed-signature": "accepted a malformed signature: refuse a webhook-signature that has no valid v1 entry",
  "stale-timestamp": "accepted a delivery signed 10 minutes ago: refuse timestamps more than 5 minutes old, or a captured delivery can be replayed",
  "future-timestamp": "accepted a delivery signed 10 minutes ahead: refuse timestamps more than 5 minutes in the future",
  "reserialized-json":
    "accepted a signature over re-serialised JSON: verify the raw body as received, before any JSON parsing (JSON.stringify(req.body) is not the bytes lp signed)",
};

/** Why refusing each must-accept case is wrong, and what to check. */
const REFUSED: Partial<Record<CheckCaseId, string>> = {
  valid: "refused a valid delivery: check the secret, that the raw body is verified, and the machine's clock",
  rotation: "refused a delivery whose second signature matches: try every space-separated v1 signature, not only the first",
  "previous-secret": "refused a delivery signed with the previous secret: keep accepting it until the rotation's 24 hours are over",
};

/** True when no answer came, or a 5xx: the receiver broke instead of deciding. */
export function isCrash(exchange: CheckExchange): boolean {
  return exchange.status === null || exchange.status >= 500;
}

/** `401`, `302 → https://…`, `timeout after 15000 ms`; with the time when it was slow. */
export function describeExchange(exchange: CheckExchange): string {
  let text = exchange.status === null ? (exchange.error ?? "no answer") : String(exchange.status);
  if (exchange.location && isRedirect(exchange)) text += ` → ${exchange.location}`;
  if (exchange.latencyMs > SLOW_MS) text += ` (${(exchange.latencyMs / 1000).toFixed(1)} s)`;
  return text;
}

function isRedirect(exchange: CheckExchange): boolean {
  return exchange.status !== null && exchange.status >= 300 && exchange.status < 400;
}

function crashNote(exchange: CheckExchange, expected: CheckExpectation): string {
  if (exchange.status === null) return `crashed: no answer (${exchange.error ?? "connection closed"})`;
  return expected === "refuse"
    ? `crashed: answered ${exchange.status}; answer 4xx to a request you refuse, never fail on it`
    : `crashed: answered ${exchange.status} to a validly signed request; lp counts it as a failure and retries`;
}

const redirectNote = (exchange: CheckExchange) =>
  `redirected to ${exchange.location ?? "(no Location)"}: lp never follows redirects, so register the final URL`;

/** The verdict of one case from its exchanges. */
export function judge(id: CheckCaseId, expected: CheckExpectation, exchanges: CheckExchange[], options: { nonce?: string; echo?: string; expectChallenge: boolean }): Judgement {
  const crashed = exchanges.find(isCrash);
  if (crashed) return { verdict: "fail", note: crashNote(crashed, expected) };
  const [first] = exchanges;
  const status = first.status!;
  if (expected === "challenge") return judgeChallenge(first, options.echo ?? first.body, options.nonce ?? "", options.expectChallenge);
  if (expected === "info") return judgeDuplicate(exchanges);
  if (isRedirect(first)) return { verdict: "fail", note: redirectNote(first) };
  const accepted = status >= 200 && status < 300;
  const refused = status >= 400 && status < 500;
  if (expected === "accept") {
    if (accepted) return { verdict: "pass", note: "accepted" };
    return { verdict: "fail", note: REFUSED[id] ?? `expected a 2xx, got ${status}` };
  }
  if (refused) return { verdict: "pass", note: "refused" };
  if (accepted) return { verdict: "fail", note: ACCEPTED[id] ?? `expected a 4xx, got ${status}` };
  return { verdict: "fail", note: `expected a 4xx, got ${status}` };
}

/** lp counts only a 200 within 10 s whose body is `{"challenge":"<nonce>"}` or the bare nonce. */
function judgeChallenge(exchange: CheckExchange, echo: string, nonce: string, expectChallenge: boolean): Judgement {
  let problem: string | null = null;
  if (isRedirect(exchange)) problem = redirectNote(exchange);
  else if (exchange.status !== 200) problem = `answered ${exchange.status}, not 200`;
  else if (!echoes(echo, nonce)) problem = "answered 200 without echoing the nonce";
  else if (exchange.latencyMs > SLOW_MS) problem = "answered after more than 10 s";
  if (!problem) return { verdict: "pass", note: "answered the challenge as lp's endpoint verification expects" };
  const how = 'answer 200 with {"challenge":"<nonce>"} or the bare nonce, within 10 s';
  return expectChallenge
    ? { verdict: "fail", note: `${problem}: lp's verification would fail; ${how}` }
    : { verdict: "info", note: `${problem}: the receiver does not answer lp's verification challenge (endpoints registered with lp stay pending_verification); ${how}` };
}

function echoes(text: string, nonce: string): boolean {
  if (text.trim() === nonce) return true;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && (parsed as { challenge?: unknown }).challenge === nonce;
  } catch {
    return false;
  }
}

function judgeDuplicate(exchanges: CheckExchange[]): Judgement {
  const [first, second] = exchanges;
  const ok = (exchange: CheckExchange | undefined) => exchange?.status !== undefined && exchange.status !== null && exchange.status >= 200 && exchange.status < 300;
  const duty = "deduplicating on webhook-id is the receiver's duty, and cannot be seen from outside";
  if (ok(first) && ok(second)) return { verdict: "info", note: `both accepted, as they should be; ${duty}` };
  if (ok(first)) {
    return {
      verdict: "info",
      note: `the repeat was answered ${describeExchange(second!)}: lp records that attempt as failed and retries; answer 2xx to a webhook-id already handled (${duty})`,
    };
  }
  return { verdict: "info", note: `the first delivery was not accepted (${describeExchange(first)}), so repeats could not be observed` };
}
