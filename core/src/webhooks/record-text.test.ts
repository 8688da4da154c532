import { describe, expect, it } from "vitest";
import { eventText } from "./record-text.js";
import type { EventRecord } from "./records.js";

const event: EventRecord = {
  id: "evt_1",
  type: "product.created",
  timestamp: "2026-03-01T00:00:00.000Z",
  account_id: "acct_1",
  environment: "production",
  data: { title: 'A "quoted" title', nested: { payload: 0 } },
};

describe("event texts", () => {
  it("an event is serialised once: its text is the same string for every attempt", () => {
    const first = eventText(event);
    expect(first).toBe(JSON.stringify(event));
    expect(eventText(event)).toBe(first);
    expect(eventText({ ...event })).toBe(first);
  });
});
