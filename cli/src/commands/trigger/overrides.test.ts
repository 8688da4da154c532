import { describe, expect, it } from "vitest";
import { applyOverrides, toOverride } from "./overrides.js";

describe("trigger --override", () => {
  it("sets values by dot path, parsing JSON where it parses, without touching the original", () => {
    const fixture = { product: { title: "A", price: 1 }, page: { checkout_fields: [{ label: "x" }] }, checkout: {} };
    const out = applyOverrides(fixture, ["product.title=Blue apron", "product.price=19.5", "page.options.language=fr", "page.checkout_fields.0.label=Name", "checkout.notes=null", 'product.images=["https://e.x/a.png"]']);
    expect(out).toEqual({
      product: { title: "Blue apron", price: 19.5, images: ["https://e.x/a.png"] },
      page: { checkout_fields: [{ label: "Name" }], options: { language: "fr" } },
      checkout: { notes: null },
    });
    expect(fixture.product.title).toBe("A");
  });

  it("refuses paths outside the fixture, prototype keys and malformed specs", () => {
    expect(() => toOverride("title=x")).toThrow(/section\.key=value|dot path/);
    expect(() => toOverride("product.__proto__=x")).toThrow(/dot path/);
    expect(() => toOverride("elsewhere.x=1")).toThrow(/not a fixture section/);
    expect(() => toOverride("=x")).toThrow(/section\.key=value/);
    expect(() => applyOverrides({}, Array(101).fill("product.a=1"))).toThrow(/at most 100/);
  });
});
