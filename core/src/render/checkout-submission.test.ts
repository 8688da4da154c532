import { describe, expect, it } from "vitest";
import { defaultCheckoutFields, type CheckoutField } from "../generation/checkout-fields.js";
import { validateCheckoutSubmission } from "./checkout-submission.js";

const fields: CheckoutField[] = [
  ...defaultCheckoutFields("service", "en"),
  { field_key: "phone", label: "Phone", field_type: "tel", is_required: false, options: [] },
  { field_key: "slot", label: "Slot", field_type: "select", is_required: false, options: ["Morning", "Evening"] },
];
const good = { name: " Ada Lovelace ", email: "ada@example.com", date: "2026-03-14" };

describe("validateCheckoutSubmission", () => {
  it("accepts a valid post, trims values, ignores unknown keys and leaves out empty optional fields", () => {
    const result = validateCheckoutSubmission(fields, { ...good, notes: "", extra: "ignored", constructor: "x" });
    expect(result).toEqual({ ok: true, values: { name: "Ada Lovelace", email: "ada@example.com", date: "2026-03-14" } });
  });

  it("keeps valid optional values", () => {
    const result = validateCheckoutSubmission(fields, { ...good, notes: "Ring twice\r\nthanks", phone: "+33 6 12 34 56 78", slot: "Evening" });
    expect(result).toEqual({
      ok: true,
      values: { ...good, name: "Ada Lovelace", notes: "Ring twice\nthanks", phone: "+33 6 12 34 56 78", slot: "Evening" },
    });
  });

  it("reports every missing required field", () => {
    const result = validateCheckoutSubmission(fields, { name: "   " });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.field_key)).toEqual(["name", "email", "date"]);
  });

  it.each([
    ["email", "not-an-email"],
    ["email", "a@b"],
    ["date", "14/03/2026"],
    ["date", "2026-02-30"],
    ["phone", "call me"],
    ["phone", "123"],
    ["slot", "Midnight"],
    ["name", "Ada\nLovelace"],
    ["notes", "x".repeat(2001)],
  ])("rejects %s = %j", (key, value) => {
    const result = validateCheckoutSubmission(fields, { ...good, [key]: value });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]!.field_key).toBe(key);
      expect(result.errors[0]!.message.length).toBeGreaterThan(0);
    }
  });

  it("accepts exactly 2000 characters", () => {
    expect(validateCheckoutSubmission(fields, { ...good, notes: "x".repeat(2000) }).ok).toBe(true);
  });
});
