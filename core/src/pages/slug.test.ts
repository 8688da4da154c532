import { describe, expect, it } from "vitest";
import { createCore, createManualClock, ensureDevCredentials, productCreateSchema } from "../index.js";
import { toSlug, toUniqueSlug } from "./slug.js";

describe("toSlug", () => {
  it("reads in the page's language", () => {
    expect(toSlug("Café Crème — 2 kg!")).toBe("cafe-creme-2-kg");
    expect(toSlug("Schöne Tasse für Kaffee", "de")).toBe("schoene-tasse-fuer-kaffee");
    expect(toSlug("Schöne Tasse", "fr")).toBe("schone-tasse");
    expect(toSlug("Straße & Weg", "de-AT")).toBe("strasse-und-weg");
    expect(toSlug("Sel & Poivre", "fr")).toBe("sel-et-poivre");
    expect(toSlug("Salt & Pepper", "en")).toBe("salt-and-pepper");
    expect(toSlug("Sal & Pimienta", "es")).toBe("sal-y-pimienta");
    expect(toSlug("Cœur de bœuf", "fr")).toBe("coeur-de-boeuf");
    expect(toSlug("Año nuevo", "es")).toBe("ano-nuevo");
  });

  it("is never empty and at most 60 characters", () => {
    expect(toSlug("★★★")).toBe("page");
    expect(toSlug("a ".repeat(100), "de").length).toBeLessThanOrEqual(60);
  });
});

describe("toUniqueSlug", () => {
  it("gives another language's page a language suffix, then numbers", () => {
    const taken = new Set(["oak-desk-lamp"]);
    expect(toUniqueSlug("oak-desk-lamp", (s) => taken.has(s), "fr")).toBe("oak-desk-lamp-fr");
    taken.add("oak-desk-lamp-fr");
    expect(toUniqueSlug("oak-desk-lamp", (s) => taken.has(s), "fr")).toBe("oak-desk-lamp-fr-2");
    expect(toUniqueSlug("oak-desk-lamp", (s) => taken.has(s), "de-CH")).toBe("oak-desk-lamp-de");
    expect(toUniqueSlug("oak-desk-lamp", (s) => taken.has(s))).toBe("oak-desk-lamp-2");
    expect(toUniqueSlug("x".repeat(60), () => false, "fr")).toBe("x".repeat(60));
    expect(toUniqueSlug("x".repeat(60), (s) => s === "x".repeat(60), "fr")).toBe(`${"x".repeat(57)}-fr`);
  });
});

describe("pages of one product in several languages", () => {
  it("get slugs that say their language", async () => {
    const clock = createManualClock("2026-05-01T00:00:00.000Z");
    const core = await createCore({ clock, publicUrl: () => "http://lp.test", sleep: async () => {} });
    const { account_id } = await ensureDevCredentials(core.database, clock, core.ids);
    const product = await core.products.create(account_id, productCreateSchema.parse({ title: "Schöne Eichenlampe", price: 30, product_type: "physical" }));
    const slugs: string[] = [];
    for (const language of ["en", "fr", "de", "ja", "en"]) {
      const job = await core.pages.create(account_id, { product_id: product.id, options: { language } }, null);
      await core.onIdle();
      const page = await core.pages.get(account_id, (await core.pages.getJob(account_id, job.job_id)).page_id!);
      slugs.push(page.slug);
    }
    // Japanese falls back to English (a warning on the job), so it is an English page.
    expect(slugs).toEqual(["schone-eichenlampe", "schone-eichenlampe-fr", "schoene-eichenlampe", "schone-eichenlampe-en", "schone-eichenlampe-en-2"]);
    await core.close?.();
  });
});
