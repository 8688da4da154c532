import { type ParsedSecret, SECRET_PREFIX } from "./secret-key.js";
import { computeSignature, findMatch } from "./signature.js";

/** Everything known about a request whose signatures matched none of the secrets. */
export interface MismatchFacts {
  id: string;
  timestamp: number;
  payload: string | Uint8Array;
  signatures: readonly Buffer[];
  secrets: readonly ParsedSecret[];
  nowSeconds: number;
}

const RAW_BODY = "verify the raw request body exactly as received";
const TEXT = {
  reserialised: `the body was re-serialised: JSON.stringify(JSON.parse(body)) matches the signature, so ${RAW_BODY}`,
  maybeReserialised:
    "the body was probably re-serialised: it parses as JSON but differs from JSON.stringify(JSON.parse(body)) " +
    `(whitespace, key order or escapes changed); ${RAW_BODY}`,
  trailing: `the body gained trailing whitespace or a newline after it was signed; ${RAW_BODY}`,
  parsed:
    "if the body went through a JSON parser before verification, the signed bytes may have differed; " +
    "pass the raw body (Buffer or string) exactly as received",
  wrongSecret:
    "the secret may belong to another endpoint or be out of date (after a rotation, pass the new and the old secret)",
  staleTimestamp:
    "each attempt is signed over its own id and timestamp, so headers from a stored, replayed or different " +
    "attempt do not match this body",
};

/** Age (seconds) past which a timestamp is worth mentioning even inside the tolerance window. */
const STALE_AFTER_SECONDS = 60;

/** One possible cause; `proven` when a repaired input does match the signature. */
interface Cause {
  text: string;
  proven?: boolean;
}

/**
 * Explains a mismatch. Where a cause can be proven (a repaired secret, or the compact form of the
 * body, does match), only proven causes are given; otherwise it lists what is likely, most likely
 * first, ending with the always-possible wrong or rotated secret.
 */
export function explainMismatch(facts: MismatchFacts): string {
  const secretCount = facts.secrets.length;
  const head =
    `No signature matched: tried ${secretCount} secret${secretCount === 1 ? "" : "s"} against ` +
    `${facts.signatures.length} v1 signature${facts.signatures.length === 1 ? "" : "s"}.`;
  const causes = [...bodyCauses(facts), ...secretCauses(facts), ...timestampCauses(facts)];
  const proven = causes.filter((cause) => cause.proven);
  if (proven.length > 0) return `${head} Cause: ${proven.map((cause) => cause.text).join("; ")}.`;
  if (!facts.secrets.some((secret) => secret.problems.length > 0)) {
    causes.push({ text: TEXT.wrongSecret });
  }
  return `${head} Likely causes: ${causes.map((cause) => cause.text).join("; ")}.`;
}

function matches(facts: MismatchFacts, key: Uint8Array, body: string | Uint8Array = facts.payload): boolean {
  return findMatch(computeSignature(key, facts.id, facts.timestamp, body), facts.signatures) !== -1;
}

function usableKeys(facts: MismatchFacts): Buffer[] {
  return facts.secrets.flatMap((secret) => (secret.key ? [secret.key] : []));
}

function bodyCauses(facts: MismatchFacts): Cause[] {
  const { payload } = facts;
  const text = typeof payload === "string" ? payload : Buffer.from(payload).toString("utf8");
  const keys = usableKeys(facts);
  const tryBody = (body: string) => keys.some((key) => matches(facts, key, body));
  const compact = toCompactJson(text);
  if (compact !== undefined && compact !== text) {
    return tryBody(compact) ? [{ proven: true, text: TEXT.reserialised }] : [{ text: TEXT.maybeReserialised }];
  }
  if (text !== text.trimEnd() && tryBody(text.trimEnd())) {
    return [{ proven: true, text: TEXT.trailing }];
  }
  if (compact !== undefined) {
    return [{ text: TEXT.parsed }];
  }
  return [];
}

function secretCauses(facts: MismatchFacts): Cause[] {
  const causes: Cause[] = [];
  for (const secret of facts.secrets) {
    const label = facts.secrets.length === 1 ? "the secret" : `secret #${secret.index + 1}`;
    if (secret.problems.length > 0) {
      const fixed = secret.repairedKey !== undefined && matches(facts, secret.repairedKey);
      causes.push({
        proven: fixed,
        text:
          `${label} ${secret.problems.join(" and ")}` +
          (fixed ? "; with that fixed it matches" : "; fix it, then check it is this endpoint's secret"),
      });
    } else if (matches(facts, Buffer.from(secret.text, "utf8"))) {
      causes.push({
        proven: true,
        text:
          `the sender used the text of ${label} as the HMAC key; ` +
          `the key is the base64-decoded part after "${SECRET_PREFIX}"`,
      });
    } else if (!secret.text.startsWith(SECRET_PREFIX)) {
      const text = `${label} lacks the "${SECRET_PREFIX}" prefix`;
      causes.push({ text: `${text}: check that you copied the whole secret of this endpoint` });
    }
  }
  return causes;
}

function timestampCauses(facts: MismatchFacts): Cause[] {
  const age = facts.nowSeconds - facts.timestamp;
  if (Math.abs(age) <= STALE_AFTER_SECONDS) return [];
  const when = age > 0 ? `${age} s old` : `${-age} s in the future`;
  return [{ text: `the webhook-timestamp is ${when}: ${TEXT.staleTimestamp}` }];
}

function toCompactJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return undefined;
  }
}
