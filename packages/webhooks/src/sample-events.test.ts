// The contract is a test-time import only: @lp/webhooks keeps no runtime dependency.
import { ALL_EVENT_TYPES, type AnyEventType, EVENT_DATA_SCHEMAS } from "@lp/contract";
import { describe, expect, expectTypeOf, it } from "vitest";
import { isSampleEventType, SAMPLE_EVENT_TYPES, type SampleEventType, sampleEventData } from "./sample-events.js";

describe("sample events", () => {
  it("has a sample for every type lp delivers as an event, and only those", () => {
    expect([...SAMPLE_EVENT_TYPES].sort()).toEqual(ALL_EVENT_TYPES.filter((type) => type !== "webhook.verification").sort());
    expect(isSampleEventType("page.created")).toBe(true);
    expect(isSampleEventType("webhook.verification")).toBe(false);
    // The same at type level, so `npm run typecheck` fails too when the catalogue gains a type.
    expectTypeOf<SampleEventType>().toEqualTypeOf<Exclude<AnyEventType, "webhook.verification">>();
  });

  it.each(SAMPLE_EVENT_TYPES)("%s matches the contract's schema of its data", (type) => {
    const result = EVENT_DATA_SCHEMAS[type].safeParse(sampleEventData(type));
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it("hands out a fresh copy each time", () => {
    const first = sampleEventData("product.created") as { title: string };
    first.title = "changed";
    expect((sampleEventData("product.created") as { title: string }).title).toBe("Linen apron — stonewashed");
  });
});
