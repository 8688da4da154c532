import { beforeAll, describe, expect, it } from "vitest";
import { formatPrice } from "../generation/format-price.js";
import { resolveLocale } from "../generation/locales/resolve-locale.js";
import { createCore, createManualClock, ensureDevCredentials, productCreateSchema, type Core } from "../index.js";

/**
 * The content rule and render-time values through the real pipeline: product, generation job,
 * deployment, the deployed HTML and the media it points at.
 */
let core: Core;
let accountId: string;

beforeAll(async () => {
  const clock = createManualClock("2026-05-01T00:00:00.000Z");
  core = await createCore({ clock, publicUrl: () => "http://lp.test", sleep: async () => {} });
  accountId = (await ensureDevCredentials(core.database, clock, core.ids)).account_id;
});

async function generate(body: Record<string, unknown>, language: string, design?: Record<string, string>) {
  const product = await core.products.create(accountId, productCreateSchema.parse(body));
  const job = await core.pages.create(accountId, { product_id: product.id, options: { language }, ...(design ? { design } : {}) }, null);
  await core.onIdle();
  const done = await core.pages.getJob(accountId, job.job_id);
  expect(done.status).toBe("completed");
  return done.page_id!;
}

async function deploy(pageId: string): Promise<string> {
  const started = await core.deployments.start(accountId, pageId, null);
  await core.onIdle();
  const page = await core.pages.requirePage(accountId, pageId);
  const site = await core.sites.find(accountId, page.slug);
  expect(site?.deployment_id).toBe(started.deployment_id);
  return site!.html;
}

const mediaPath = (url: string) => url.replace("http://lp.test/media/", "");
const meta = (html: string, key: string) => html.match(new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)">`))?.[1] ?? null;
const imgSrc = (html: string, name: string) => html.match(new RegExp(`src="(http://lp.test/media/pages/[^"]+/${name}-[0-9a-f]+\\.svg)"`))?.[1] ?? null;

/** Phrases the earlier generator invented, in the four languages, and generic review/guarantee wording. */
const forbidden = [
  /verified (buyer|customer)/i, /what our customers say/i, /money-back/i, /guarantee/i, /within 30 days/i, /send it back/i, /free cancellation/i,
  /client(e)? vérifié/i, /achat vérifié/i, /ce que disent nos clients/i, /satisfait ou rembours/i, /annulation gratuite/i, /sous 30 jours/i,
  /comprador(a)? verificad/i, /cliente verificad/i, /lo que dicen/i, /garant[ií]a/i, /devoluci[oó]n/i, /cancelaci[oó]n gratuita/i,
  /verifizierte/i, /das sagen unsere kunden/i, /geld-zurück/i, /garantie/i, /zurücksenden/i, /kostenlose stornierung/i,
  /\b2 (to|à|a|bis) 5\b/i, /stock/i, /vorrat/i, /★/, /\breviews?\b/i, /testimonial/i,
];

describe("a page generated from a product with no testimonial or policy input", () => {
  for (const language of ["en", "fr", "es", "de"]) {
    for (const product_type of ["physical", "service"] as const) {
      it(`states none in ${language}, ${product_type}`, async () => {
        const body = { title: `Plain ${product_type} ${language}`, description: "Handmade.", price: 30, original_price: 40, delivery_price: 5, product_type };
        const html = await deploy(await generate(body, language));
        expect(html).not.toContain('id="social-proof"');
        expect(html).not.toContain("<blockquote");
        expect(html).not.toContain('class="guarantee"');
        for (const phrase of forbidden) expect(html, String(phrase)).not.toMatch(phrase);
        expect(html).not.toMatch(/\{(price|original_price|saving|saving_percent|delivery_price)\}/);
        // Each fact once: the price in the hero and beside the order button, one footer in the page's language.
        const shown = html.slice(html.indexOf("<body>"));
        const { locale } = resolveLocale(language);
        expect(shown.split(formatPrice(30, "USD", language)).length - 1).toBe(2);
        expect(shown.split("<footer").length - 1).toBe(1);
        expect(shown).toContain(locale.footer[product_type]);
      });
    }
  }
});

describe("currency and theme edits", () => {
  it("show in the next deployment's HTML, SEO tags and images", async () => {
    const body = { title: "Cours de poterie", description: "Deux heures d’atelier.", price: 65, product_type: "service" };
    const pageId = await generate(body, "fr", { primary_color: "#123456", font_family: "Georgia, serif" });
    const before = await deploy(pageId);
    expect(before).toContain("65,00\u00a0$US");
    expect(meta(before, "product:price:currency")).toBe("USD");

    await core.pages.update(accountId, pageId, { global_theme: { currency: "EUR", primaryColor: "#0a7d3b", fontFamily: "Verdana, sans-serif" } });
    const after = await deploy(pageId);
    // The price block in the hero and beside the form follows the currency: nothing still says $US.
    expect(after).not.toContain("$US");
    expect(after.split("65,00\u00a0€").length - 1).toBe(2);
    expect(meta(after, "product:price:currency")).toBe("EUR");

    const hero = imgSrc(after, "hero")!;
    expect(hero).not.toBe(imgSrc(before, "hero"));
    const heroSvg = (await core.media.get(mediaPath(hero)))!.bytes.toString("utf8");
    expect(heroSvg).toContain('stop-color="#0a7d3b"');
    expect(heroSvg).toContain('font-family="Verdana, sans-serif"');
    expect(heroSvg).not.toContain("#123456");
    // A designed picture, not the copy again: the initial is its only text.
    expect(heroSvg).not.toContain("poterie");
    expect(heroSvg).toContain(">C</text>");

    const og = meta(after, "og:image")!;
    expect(og).toMatch(/\/og-[0-9a-f]+\.png$/);
    expect(og).not.toBe(meta(before, "og:image"));
    expect(meta(after, "twitter:image")).toBe(og);
    const png = (await core.media.get(mediaPath(og)))!;
    expect(png.mediaType).toBe("image/png");
    expect(png.bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    expect([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)]).toEqual([1200, 630]);
    // The first deployment keeps the images it was rendered with.
    expect(await core.media.get(mediaPath(meta(before, "og:image")!))).not.toBeNull();
  });

  it("reuses the stored images when nothing changed", async () => {
    const pageId = await generate({ title: "Linen apron", description: "Linen.", price: 20, product_type: "physical" }, "en");
    const first = await deploy(pageId);
    const second = await deploy(pageId);
    expect(meta(second, "og:image")).toBe(meta(first, "og:image"));
    expect(imgSrc(second, "hero")).toBe(imgSrc(first, "hero"));
  });
});
