import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchesText, toProductEntry, type ProductRecord } from "./product-view.js";

const record = (title: string, description: string | null, created_at: string, updated_at: string): ProductRecord => ({
  id: "p1",
  account_id: "acct_a",
  title,
  description,
  price: 10,
  original_price: null,
  delivery_price: null,
  product_type: "physical",
  images: [],
  checkout_fields: null,
  created_at,
  updated_at,
  deleted_at: null,
});

// Letters whose lowercase depends on their neighbours (final sigma) or grows (dotted capital I), line breaks.
const text = fc.string({ unit: fc.constantFrom("a", "B", "Σ", "İ", "\n", " ", "'", "é") });

describe("the products index entry", () => {
  it("finds a needle exactly where the lowercased title, a line break and the description hold it", () => {
    fc.assert(
      fc.property(text, fc.option(text, { nil: null }), text, (title, description, raw) => {
        const entry = toProductEntry(record(title, description, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"))!;
        const needle = raw.toLowerCase();
        expect(matchesText(entry, needle)).toBe(`${title}\n${description ?? ""}`.toLowerCase().includes(needle));
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps the record's values: the timestamps, the type, the title without ASCII case and the search text", () => {
    const same = toProductEntry(record("Desk", "Oak", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"))!;
    expect(same).toMatchObject({ title: "desk", text: "desk\noak", product_type: "physical", created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z" });
    const edited = toProductEntry(record("Desk", null, "2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"))!;
    expect(edited).toMatchObject({ text: "desk\n", updated_at: "2026-02-01T00:00:00.000Z" });
  });

  it("sorts titles by their text with A-Z lowered and nothing else, as SQLite's lower() keys its index", () => {
    fc.assert(
      fc.property(text, (title) => {
        expect(toProductEntry(record(title, null, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"))!.title).toBe(
          [...title].map((c) => (c >= "A" && c <= "Z" ? c.toLowerCase() : c)).join(""),
        );
      }),
    );
    expect(toProductEntry(record("ÉCLAIR Box", null, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"))!.title).toBe("Éclair box");
  });
});
