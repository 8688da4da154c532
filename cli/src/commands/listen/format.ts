import type { Delivery } from "@lp/webhooks";
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

/**
 * One human line per accepted event, for stdout. The id shown is the `webhook-id`, the delivery id
 * that `lp webhooks retry` takes (the event's own id is in `--json`).
 */
export function toLine(delivery: Delivery, colors: Colors): string {
  const event = delivery.event;
  const verified = delivery.verification === undefined ? colors.yellow("unverified") : colors.green("verified");
  const status = delivery.response?.status ?? 0;
  const reply = status >= 200 && status < 300 ? colors.green(String(status)) : colors.red(String(status));
  const extra = [delivery.attempt ? `attempt ${delivery.attempt}` : "", delivery.duplicate ? "duplicate" : ""].filter(Boolean).join(", ");
  return `${delivery.receivedAt.toISOString()}  ${colors.bold(event?.type ?? "?")}  ${delivery.webhookId ?? event?.id ?? "-"}  ${verified}  → ${reply}${extra ? `  (${extra})` : ""}\n`;
}
