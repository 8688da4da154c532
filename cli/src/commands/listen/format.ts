import type { Delivery, Receiver } from "@lp/webhooks";
import type { Colors } from "../../runtime/color.js";

/** What one request looks like in `--json` output. */
export function toRecord(delivery: Delivery) {
  const verification = delivery.verification;
  return {
    received_at: delivery.receivedAt.toISOString(),
    webhook_id: delivery.webhookId ?? null,
    attempt: delivery.attempt ?? null,
    type: delivery.event?.type ?? delivery.eventType ?? null,
    challenge: delivery.challenge,
    verified: verification === undefined ? null : verification.ok,
    reason: verification && !verification.ok ? verification.reason : null,
    message: verification && !verification.ok ? verification.message : null,
    duplicate: delivery.duplicate,
    status: delivery.response?.status ?? null,
    event: delivery.event ?? null,
  };
}

/** One human line per accepted event, for stdout. */
export function toLine(delivery: Delivery, colors: Colors): string {
  const event = delivery.event;
  const verified = delivery.verification === undefined ? colors.yellow("unverified") : colors.green("verified");
  const status = delivery.response?.status ?? 0;
  const reply = status >= 200 && status < 300 ? colors.green(String(status)) : colors.red(String(status));
  const extra = [delivery.attempt ? `attempt ${delivery.attempt}` : "", delivery.duplicate ? "duplicate" : ""].filter(Boolean).join(", ");
  return `${delivery.receivedAt.toISOString()}  ${colors.bold(event?.type ?? "?")}  ${event?.id ?? delivery.webhookId ?? "-"}  ${verified}  → ${reply}${extra ? `  (${extra})` : ""}\n`;
}

/** An expectation of `--expect`. */
export interface Expectation {
  type: string;
  count: number;
}

/** What arrived compared with what was expected, for the timeout message. */
export function summarize(expectations: Expectation[], receiver: Pick<Receiver, "events" | "deliveries">): string {
  const count = (type: string) => receiver.events.filter((e) => e.type === type).length;
  const wanted = expectations.map((e) => `${e.type} ${count(e.type)}/${e.count}`).join(", ");
  const byType = new Map<string, number>();
  for (const event of receiver.events) byType.set(event.type, (byType.get(event.type) ?? 0) + 1);
  const got = [...byType].map(([type, n]) => `${type} ×${n}`).join(", ") || "none";
  const rejected = receiver.deliveries.filter((d) => d.verification && !d.verification.ok);
  const reasons = [...new Set(rejected.map((d) => (d.verification && !d.verification.ok ? d.verification.reason : "")))].join(", ");
  return `Expectations not met: ${wanted}. Received ${receiver.deliveries.length} request(s); events: ${got}${rejected.length ? `; ${rejected.length} rejected (${reasons})` : ""}.`;
}
