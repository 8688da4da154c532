import { describe, expect, it } from "vitest";
import { checkoutFieldSchema, checkoutFieldsSchema, defaultCheckoutFields, toFieldLabel } from "./checkout-fields.js";

describe("checkoutFieldSchema", () => {
  it("fills defaults: label from the key, text, required, no options", () => {
    expect(checkoutFieldSchema.parse({ field_key: "delivery_notes" })).toEqual({
      field_key: "delivery_notes",
      label: "Delivery notes",
      field_type: "text",
      is_required: true,
      options: [],
    });
  });

  it("keeps given values", () => {
    const field = checkoutFieldSchema.parse({ field_key: "size", label: " Taille ", field_type: "select", is_required: false, options: ["S", "M"] });
    expect(field).toEqual({ field_key: "size", label: "Taille", field_type: "select", is_required: false, options: ["S", "M"] });
  });

  it.each(["", "Name", "1st", "first-name", "a".repeat(65), "ünï"])("rejects the field_key %j", (field_key) => {
    expect(checkoutFieldSchema.safeParse({ field_key }).success).toBe(false);
  });

  it("requires non-empty, unique options on a select", () => {
    expect(checkoutFieldSchema.safeParse({ field_key: "size", field_type: "select" }).success).toBe(false);
    expect(checkoutFieldSchema.safeParse({ field_key: "size", field_type: "select", options: [] }).success).toBe(false);
    expect(checkoutFieldSchema.safeParse({ field_key: "size", field_type: "select", options: ["S", "S"] }).success).toBe(false);
  });

  it("forbids options on other types", () => {
    const result = checkoutFieldSchema.safeParse({ field_key: "city", field_type: "text", options: ["Paris"] });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["options"]);
  });

  it("rejects unknown field types", () => {
    expect(checkoutFieldSchema.safeParse({ field_key: "age", field_type: "number" }).success).toBe(false);
  });

  it("rejects duplicate keys in a list", () => {
    expect(checkoutFieldsSchema.safeParse([{ field_key: "name" }, { field_key: "name" }]).success).toBe(false);
    expect(checkoutFieldsSchema.parse([{ field_key: "name" }, { field_key: "email", field_type: "email" }])).toHaveLength(2);
  });
});

describe("defaultCheckoutFields", () => {
  it("asks a physical order for name, phone, address and city", () => {
    const fields = defaultCheckoutFields("physical", "en");
    expect(fields.map((f) => [f.field_key, f.field_type, f.is_required])).toEqual([
      ["name", "text", true],
      ["phone", "tel", true],
      ["address", "textarea", true],
      ["city", "text", true],
    ]);
    expect(fields.every((f) => f.options.length === 0 && f.label.length > 0)).toBe(true);
  });

  it("asks a service booking for name, email, date and optional notes", () => {
    const fields = defaultCheckoutFields("service", "en");
    expect(fields.map((f) => [f.field_key, f.field_type, f.is_required])).toEqual([
      ["name", "text", true],
      ["email", "email", true],
      ["date", "date", true],
      ["notes", "textarea", false],
    ]);
  });

  it.each([
    ["en", "Phone number"],
    ["fr", "Téléphone"],
    ["es", "Teléfono"],
    ["de", "Telefonnummer"],
    ["pt", "Phone number"],
  ])("localises labels in %s", (language, phone) => {
    expect(defaultCheckoutFields("physical", language)[1]!.label).toBe(phone);
  });

  it("produces fields the input schema accepts unchanged", () => {
    for (const field of [...defaultCheckoutFields("physical", "de"), ...defaultCheckoutFields("service", "fr")]) {
      expect(checkoutFieldSchema.parse(field)).toEqual(field);
    }
  });

  it("humanises keys", () => {
    expect(toFieldLabel("postal__code")).toBe("Postal code");
  });
});
