import type { CheckCase, CheckExchange, CheckReceiverOptions, CheckReport } from "./check-receiver-types.js";
import { WEBHOOK_HEADERS } from "./headers.js";
import { planCases, type PlannedCase, type PreparedRequest } from "./internal/check-cases.js";
import { describeExchange, judge, SLOW_MS } from "./internal/check-judge.js";
import { postOnce } from "./internal/check-post.js";
import { parseSecret } from "./internal/secret-key.js";
import { isSampleEventType, sampleEventData } from "./sample-events.js";

/** lp's own timeout for one delivery attempt. */
export const DEFAULT_CHECK_TIMEOUT_MS = 15_000;

/** The bytes of an answer kept in the report. */
const BODY_EXCERPT = 1024;

/** Headers the check sets itself: a caller's header may not replace them. */
const RESERVED = new Set([...Object.values(WEBHOOK_HEADERS), "content-length", "content-type", "host", "transfer-encoding", "connection"]);

/**
 * Checks that a webhook receiver refuses what it must and accepts what it must. Sends real, signed
 * Standard Webhooks deliveries one after another: valid ones (a plain delivery, a rotation with two
 * signatures, lp's verification challenge) and forged ones (body changed, another secret, no or a
 * malformed signature, a timestamp 10 minutes old or ahead, a signature over re-serialised JSON), then
 * one delivery twice. Resolves with the report; `report.ok` is false when any case failed. Rejects
 * (TypeError) only for bad options; whatever the receiver does is reported, never thrown.
 *
 * @example
 * const report = await checkReceiver({ url: "http://127.0.0.1:3000/webhooks", secret: process.env.WEBHOOK_SECRET! });
 * assert.deepEqual(report.failed, []);
 */
export async function checkReceiver(options: CheckReceiverOptions): Promise<CheckReport> {
  const url = toUrl(options.url);
  for (const [label, secret] of [["secret", options.secret], ["previousSecret", options.previousSecret]] as const) {
    if (label === "previousSecret" && secret === undefined) continue;
    if (!parseSecret(secret).key) throw new TypeError(`checkReceiver: ${label} must be "whsec_" followed by base64.`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000) throw new TypeError("checkReceiver: timeoutMs must be an integer from 1 to 600000.");
  const extra = toExtraHeaders(options.headers ?? {});
  const event = toEvent(options.event);
  const now = options.now ?? (() => new Date());

  const cases: CheckCase[] = [];
  for (const planned of planCases({ secret: options.secret, previousSecret: options.previousSecret, event })) {
    cases.push(await runCase(planned, { url, extra, timeoutMs, now, expectChallenge: options.expectChallenge === true }));
  }
  const count = (verdict: CheckCase["verdict"]) => cases.filter((c) => c.verdict === verdict).length;
  const failed = cases.filter((c) => c.verdict === "fail").map((c) => c.id);
  return {
    url: url.href,
    eventType: event.type,
    ok: failed.length === 0,
    counts: { pass: count("pass"), fail: count("fail"), info: count("info") },
    failed,
    cases,
  };
}

interface RunContext {
  url: URL;
  extra: Record<string, string>;
  timeoutMs: number;
  now: () => Date;
  expectChallenge: boolean;
}

async function runCase(planned: PlannedCase, ctx: RunContext): Promise<CheckCase> {
  const exchanges: CheckExchange[] = [];
  let nonce: string | undefined;
  let echo = "";
  for (const build of planned.requests) {
    const request = build(Math.floor(ctx.now().getTime() / 1000));
    nonce ??= request.nonce;
    const answer = await postOnce(ctx.url, request.body, toHeaders(request, ctx.extra), ctx.timeoutMs);
    exchanges.push({
      webhookId: request.webhookId,
      timestamp: request.timestamp,
      signature: request.signature,
      status: answer.status,
      error: answer.error,
      location: answer.location,
      body: answer.text.slice(0, BODY_EXCERPT),
      latencyMs: answer.latencyMs,
    });
    // A challenge is judged on all that was read, not on the report's excerpt.
    if (request.nonce) echo = answer.text;
  }
  const { verdict, note } = judge(planned.id, planned.expected, exchanges, { nonce, echo, expectChallenge: ctx.expectChallenge });
  const slowest = Math.max(...exchanges.map((e) => e.latencyMs));
  const slow = slowest > SLOW_MS;
  return {
    id: planned.id,
    title: planned.title,
    expected: planned.expected,
    got: exchanges.map(describeExchange).join(", "),
    verdict,
    note: slow ? `${note}; slow: ${(slowest / 1000).toFixed(1)} s (lp's verification gives up after 10 s, a delivery after 15 s)` : note,
    slow,
    exchanges,
  };
}

function toHeaders(request: PreparedRequest, extra: Record<string, string>): Record<string, string> {
  // The caller may replace the user-agent (a firewall's allow-list), never what the check is about.
  const headers: Record<string, string> = {
    "user-agent": "lp-webhooks/1 (check-receiver)",
    ...extra,
    "content-type": "application/json",
    [WEBHOOK_HEADERS.id]: request.webhookId,
    [WEBHOOK_HEADERS.timestamp]: String(request.timestamp),
    [WEBHOOK_HEADERS.eventType]: request.eventType,
    [WEBHOOK_HEADERS.attempt]: String(request.attempt),
  };
  if (request.signature !== null) headers[WEBHOOK_HEADERS.signature] = request.signature;
  return headers;
}

function toUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`checkReceiver: url '${String(text).slice(0, 200)}' is not a URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("checkReceiver: url must be http or https.");
  if (url.username || url.password) throw new TypeError("checkReceiver: url must not carry credentials; pass them in headers.");
  return url;
}

function toExtraHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Object.entries(headers);
  if (entries.length > 50) throw new TypeError("checkReceiver: at most 50 extra headers.");
  for (const [name, value] of entries) {
    const key = name.trim().toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]{1,256}$/.test(key)) throw new TypeError(`checkReceiver: '${name.slice(0, 80)}' is not a header name.`);
    if (RESERVED.has(key)) throw new TypeError(`checkReceiver: the ${key} header is set by the check and cannot be replaced.`);
    if (typeof value !== "string" || value.length > 8192 || /[\r\n\0]/.test(value)) throw new TypeError(`checkReceiver: the value of ${key} must be one line of at most 8192 characters.`);
    out[key] = value;
  }
  return out;
}

function toEvent(event: CheckReceiverOptions["event"]): { type: string; data: unknown } {
  if (event === undefined) return { type: "product.created", data: sampleEventData("product.created") };
  if (typeof event === "string") {
    if (!isSampleEventType(event)) throw new TypeError(`checkReceiver: no sample for event type '${String(event).slice(0, 80)}'.`);
    return { type: event, data: sampleEventData(event) };
  }
  if (typeof event.type !== "string" || event.type === "" || event.type.length > 200) throw new TypeError("checkReceiver: event.type must be a non-empty string.");
  if (JSON.stringify(event.data) === undefined) throw new TypeError("checkReceiver: event.data must be JSON.");
  return { type: event.type, data: event.data };
}
