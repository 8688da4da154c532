import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCore, type Core } from "../core.js";
import { createManualClock, cryptoIds, type IdSource } from "../deps.js";
import { createStores, type Stores } from "../storage/create-storage.js";
import { useTempDirs } from "../testing/temp-dirs.js";
import { productListSchema } from "./products-service.js";

// Letters whose lowercase is not theirs alone: the dotted capital I and the Kelvin sign lowercase to ASCII,
// final sigma depends on its neighbours, É and Å lowercase out of ASCII; line breaks join title and description.
const UNITS = ["a", "B", "i", "K", "k", "İ", "K", "Σ", "É", "é", "Å", "\n", " ", "-"];
const text = (max: number) => fc.string({ unit: fc.constantFrom(...UNITS), maxLength: max });

/** Every id a listing gives, page by page. */
async function listAll(core: Core, query: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await core.products.list("acct_a", productListSchema.parse({ ...query, per_page: "7", ...(cursor ? { cursor } : {}) }));
    ids.push(...page.data.map((p) => p.id));
    if (!page.pagination.next_cursor) return ids;
    cursor = page.pagination.next_cursor;
  }
}

describe("products list filters on the embedded store", () => {
  const temp = useTempDirs();

  it("lists what memory lists for every search, type and created bound: what SQLite rules out never matches", async () => {
    const titles = fc.sample(fc.tuple(text(6), fc.option(text(6), { nil: null })), { numRuns: 80, seed: 11 });
    const needles = fc.sample(text(3).filter((n) => n.trim().length > 0), { numRuns: 40, seed: 12 });
    const opened: { core: Core; stores: Stores }[] = [];
    try {
      for (const kind of ["memory", "sqlite"] as const) {
        const stores = createStores(kind, kind === "sqlite" ? temp("filters") : undefined);
        const clock = createManualClock("2026-03-01T00:00:00.000Z");
        const core = await createCore({ stores, clock, publicUrl: () => "http://lp.test", ids: sequentialIds() });
        opened.push({ core, stores });
        for (const [i, [title, description]] of titles.entries()) {
          await core.products.create("acct_a", { title: title || "x", description, price: i % 5, product_type: i % 3 === 0 ? "service" : "physical" });
          clock.advance(3 * 3_600_000);
        }
      }
      const [memory, sqlite] = opened.map((o) => o.core) as [Core, Core];
      const queries: Record<string, string>[] = [
        ...needles.map((q) => ({ q })),
        ...needles.slice(0, 10).map((q) => ({ q, sort: "title", product_type: "physical" })),
        { product_type: "service", sort: "-price" },
        { created_after: "2026-03-03", created_before: "2026-03-06T05:00:00+05:00" },
        { created_after: "2026-03-02T10:00:00Z", sort: "-updated_at", q: "a" },
      ];
      for (const query of queries) expect({ query, ids: await listAll(sqlite, query) }).toEqual({ query, ids: await listAll(memory, query) });
    } finally {
      for (const { core, stores } of opened) {
        await core.close();
        await stores.dispose();
      }
    }
  });
});

/** Ids that sort in creation order and are the same on both stores, so the two lists compare by id. */
function sequentialIds(): IdSource {
  let n = 0;
  return { ...cryptoIds, uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` };
}
