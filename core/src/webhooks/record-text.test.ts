import { describe, expect, it } from "vitest";
import { deliveryText, eventText } from "./record-text.js";
import type { DeliveryRecord, EventRecord } from "./records.js";

const event: EventRecord = {
  id: "evt_1",
  type: "product.created",
  timestamp: "2026-03-01T00:00:00.000Z",
  account_id: "acct_1",
  environment: "production",
  data: { title: 'A "quoted" title with "payload":0 in it', nested: { payload: 0 } },
};

function delivery(responseBody: string | null): DeliveryRecord {
  return {
    id: "dlv_1",
    application_id: "app_1",
    endpoint_id: "ep_1",
    event_id: event.id,
    event_type: event.type,
    status: "failed",
    attempts: [{ number: 1, trigger: "scheduled", started_at: event.timestamp, status_code: 500, latency_ms: 3, outcome: "failed", error: null, response_body: responseBody, truncated: false }],
    scheduled_attempts: 1,
    auto_retry: false,
    next_trigger: "scheduled",
    next_attempt_at: null,
    skipped_reason: null,
    payload: event,
    created_at: event.timestamp,
    updated_at: event.timestamp,
  };
}

describe("record texts", () => {
  it("a delivery's text is the record's JSON, byte for byte, whatever its strings hold", () => {
    for (const body of [null, '{"payload":0}', '"payload":0,"created_at":"x"', "\\\"payload\\\":0", "é \u2028 \u0000"]) {
      const d = delivery(body);
      expect(deliveryText(d)).toBe(JSON.stringify(d));
      expect(JSON.parse(deliveryText(d))).toEqual(d);
    }
  });

  it("an event is serialised once: its text is the same string for every delivery and attempt", () => {
    const first = eventText(event);
    expect(first).toBe(JSON.stringify(event));
    expect(eventText(event)).toBe(first);
    const text = deliveryText(delivery(null));
    expect(text.includes(`"payload":${first},"created_at"`)).toBe(true);
  });
});
