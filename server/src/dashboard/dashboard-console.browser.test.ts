import { readFileSync } from "node:fs";
import { EVENT_TYPES } from "@lp/contract/events";
import { createReceiver, type Receiver } from "@lp/webhooks";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuth, useDashboardFixture } from "./browser-fixture.js";
import { browserAvailable, expectNoAxeViolations, sidewaysOverflow, VIEWPORTS, waitForView } from "./browser-harness.js";
/** The delivery list's page size (DELIVERY_PAGE in ui/views/deliveries.ts, which needs a browser to load). */
const DELIVERY_PAGE = 25;

const APRON = readFileSync(new URL("../../../fixtures/images/apron.png", import.meta.url));

/**
 * The sideways-scroll check on what the tab shows now, dark, at both sizes, and axe once on memory (the markup
 * and colours do not depend on the storage; dashboard.browser.test.ts checks every view with axe at both sizes);
 * then back to light at 1440x900.
 */
async function checkDarkAtBothSizes(page: Page, storage: "memory" | "sqlite", what: string): Promise<void> {
  await page.emulateMedia({ colorScheme: "dark" });
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    if (storage === "memory" && size === "desktop") await expectNoAxeViolations(page, `${what}, dark`);
    expect(await sidewaysOverflow(page), `${what} at ${size}, dark`).toBe("0");
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** Uploading product images, sending every event of the catalogue, and paging deliveries, in headless Chromium. */
describe.skipIf(!browserAvailable).each(["memory", "sqlite"] as const)("dashboard uploads, events and delivery pages in Chromium (%s)", (storage) => {
  const f = useDashboardFixture(storage);
  /** Subscribed to every event of the catalogue; accepts everything. */
  let everything: Receiver;
  let everythingId: string;
  const dev = (path: string, body: unknown) =>
    fetch(`${f.server.url}/v1/developer/webhook-endpoints${path}`, { method: "POST", headers: { authorization: basicAuth(f.server), "content-type": "application/json" }, body: JSON.stringify(body) });

  beforeAll(async () => {
    everything = await createReceiver();
    const made = await dev("", { url: `${everything.url}/all`, events: [...EVENT_TYPES] });
    expect(made.status).toBe(201);
    everythingId = (await made.json()).data.id;
  });
  afterAll(() => everything?.close());

  it("reloads what it shows once its live stream opens: a change made before then is not missed", async () => {
    const account = f.server.credentials.account_id;
    // The stream is held until the change is made, as a loaded machine may open it after the view's first load.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const stream = "**/_dashboard/api/events";
    await f.page.route(stream, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await f.page.goto("about:blank");
      await f.page.goto(`${f.server.url}/_dashboard/#/products`);
      await waitForView(f.page, "Products");
      const made = await f.api(`/v1/accounts/${account}/products`, { method: "POST", body: JSON.stringify({ title: "Held Stream Mug", price: 9, product_type: "physical" }) });
      expect(made.status).toBe(201);
      release();
      await f.page.locator("li.card.product", { has: f.page.getByRole("heading", { name: "Held Stream Mug" }) }).waitFor();
    } finally {
      release();
      await f.page.unroute(stream);
    }
  });

  it("uploads an image file from the product's editor: it shows in the editor and on the card; refusals are errors", async () => {
    const account = f.server.credentials.account_id;
    const made = await (await f.api(`/v1/accounts/${account}/products`, { method: "POST", body: JSON.stringify({ title: "Upload Cup", price: 12, product_type: "physical" }) })).json();
    await f.page.goto("about:blank");
    await f.page.goto(`${f.server.url}/_dashboard/#/products/${made.data.id}`);
    await waitForView(f.page, "Products");
    const editor = f.page.locator("section.panel");
    await editor.getByRole("heading", { name: "Edit Upload Cup" }).waitFor();
    await editor.getByLabel("Image files").setInputFiles({ name: "apron.png", mimeType: "image/png", buffer: APRON });
    await editor.getByRole("button", { name: "Upload" }).click();
    await editor.getByRole("status").filter({ hasText: "Uploaded apron.png." }).waitFor();
    const shown = editor.getByRole("img", { name: "Image 1 of Upload Cup" });
    await expect(shown.getAttribute("src")).resolves.toMatch(/\/media\/.+\.png$/);
    // The browser really loaded it: the uploaded PNG's own size, not a broken image.
    await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(APRON.readUInt32BE(16));
    const stored = await (await f.api(`/v1/accounts/${account}/products/${made.data.id}`)).json();
    expect(stored.data.images).toHaveLength(1);
    // The card of the product in the list shows it too (the list reloads on the product.updated event).
    const card = f.page.locator("li.card.product", { has: f.page.getByRole("heading", { name: "Upload Cup" }) });
    await expect.poll(() => card.getByRole("img").getAttribute("src")).toBe(stored.data.images[0].url);

    // Text named .png: the API reads the bytes and refuses; its message is shown as an error.
    await editor.getByLabel("Image files").setInputFiles({ name: "notes.png", mimeType: "image/png", buffer: Buffer.from("not an image") });
    await editor.getByRole("button", { name: "Upload" }).click();
    await editor.getByRole("alert").filter({ hasText: "Not uploaded: File 'notes.png' is not a PNG, JPEG, GIF, WebP, AVIF or SVG image." }).waitFor();
    // A type the API never takes is refused before anything is sent.
    await editor.getByLabel("Image files").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("text") });
    await editor.getByRole("button", { name: "Upload" }).click();
    await editor.getByRole("alert").filter({ hasText: "notes.txt is text/plain; the API takes PNG, JPEG, GIF, WEBP, AVIF, SVG." }).waitFor();
    expect((await (await f.api(`/v1/accounts/${account}/products/${made.data.id}`)).json()).data.images).toHaveLength(1);
    await checkDarkAtBothSizes(f.page, storage, "the product editor with an upload error");
  }, 60_000);

  it("sends every event of the catalogue from its lp trigger fixture and lists each endpoint's delivery with its outcome", async () => {
    await f.page.goto("about:blank");
    await f.page.goto(`${f.server.url}/_dashboard/#/events`);
    await waitForView(f.page, "Send an event");
    await expect(f.page.getByLabel("Event", { exact: true }).locator("option").allTextContents()).resolves.toEqual([...EVENT_TYPES]);
    const fixture = f.page.getByLabel(/^Fixture/);
    for (const event of EVENT_TYPES) {
      await f.page.getByLabel("Event", { exact: true }).selectOption(event);
      await expect.poll(() => fixture.inputValue()).toContain('"product"');
      if (event === "checkout.submitted") expect(JSON.parse(await fixture.inputValue()).checkout).toMatchObject({ email: "ada@example.com" });
      await f.page.getByRole("button", { name: `Send ${event}` }).click();
      await f.page.getByRole("status").filter({ hasText: `${event} sent:` }).waitFor({ timeout: 30_000 });
      const row = f.page.locator("table tr", { has: f.page.getByText(`${everything.url}/all`, { exact: true }) });
      await expect(row.getAttribute("data-status"), event).resolves.toBe("succeeded");
      await expect(row.textContent()).resolves.toContain("succeeded (HTTP 200)");
    }
    // The receiver really got each of them.
    const types = everything.events.map((e) => e.type);
    for (const event of EVENT_TYPES) expect(types, event).toContain(event);
    await checkDarkAtBothSizes(f.page, storage, "Send an event with its endpoints");
  }, 240_000);

  it("sends the edited fixture; a fixture that is not JSON, or that the API refuses, is an error and sends nothing", async () => {
    await f.page.goto("about:blank");
    await f.page.goto(`${f.server.url}/_dashboard/#/events`);
    await waitForView(f.page, "Send an event");
    const fixture = f.page.getByLabel(/^Fixture/);
    const edited = JSON.parse(await fixture.inputValue());
    edited.product.title = "Sent Event Lamp";
    await fixture.fill(JSON.stringify(edited));
    await f.page.getByRole("button", { name: "Send product.created" }).click();
    await f.page.getByRole("status").filter({ hasText: "product.created sent:" }).waitFor({ timeout: 30_000 });
    const titles = async () => (await (await f.api(`/v1/accounts/${f.server.credentials.account_id}/products?per_page=100`)).json()).data.map((p: { title: string }) => p.title);
    expect(await titles()).toContain("Sent Event Lamp");

    await fixture.fill("{ not json");
    await f.page.getByRole("button", { name: "Send product.created" }).click();
    await f.page.getByRole("alert").filter({ hasText: "The fixture is not JSON" }).waitFor();
    await fixture.fill(JSON.stringify({ product: { ...edited.product, title: "Refused Lamp", price: -1 } }));
    await f.page.getByRole("button", { name: "Send product.created" }).click();
    await f.page.getByRole("alert").filter({ hasText: "The API refused the product step (HTTP 400)" }).waitFor();
    await fixture.fill(JSON.stringify({ product: edited.product, checkout: {} }));
    await f.page.getByRole("button", { name: "Send product.created" }).click();
    await f.page.getByRole("alert").filter({ hasText: "fixture.checkout is not read by product.created" }).waitFor();
    expect(await titles()).not.toContain("Refused Lamp");
    await checkDarkAtBothSizes(f.page, storage, "Send an event with an error");
  }, 60_000);

  it(`pages the delivery list ${DELIVERY_PAGE} at a time, with the event type filter`, async () => {
    for (let i = 0; i < DELIVERY_PAGE + 5; i++) expect((await dev(`/${everythingId}/test`, {})).status).toBe(202);
    await f.server.core.onIdle();
    await f.page.goto("about:blank");
    await f.page.goto(`${f.server.url}/_dashboard/#/webhooks/${everythingId}?app=${f.server.credentials.application_id}`);
    await waitForView(f.page, "Webhooks");
    const panel = f.page.locator("section.panel", { has: f.page.getByRole("heading", { name: `Deliveries of ${everythingId}` }) });
    await panel.getByLabel("Event type").selectOption("webhook.test");
    await expect.poll(() => panel.locator("li.delivery").count()).toBe(DELIVERY_PAGE);
    await panel.getByText("older ones remain").waitFor();
    await panel.getByRole("button", { name: `Load ${DELIVERY_PAGE} older` }).click();
    await expect.poll(() => panel.locator("li.delivery").count()).toBe(DELIVERY_PAGE + 5);
    await expect(panel.getByRole("button", { name: /^Load / }).count()).resolves.toBe(0);
    const ids = await panel.locator("li.delivery").evaluateAll((items) => items.map((li) => li.getAttribute("data-id")));
    expect(new Set(ids).size).toBe(DELIVERY_PAGE + 5);
    await expect(panel.locator('li.delivery:not([data-status="succeeded"])').count()).resolves.toBe(0);
    // Back to every type: the first page again, with the pager.
    await panel.getByLabel("Event type").selectOption("");
    await expect.poll(() => panel.locator("li.delivery").count()).toBe(DELIVERY_PAGE);
    await panel.getByRole("button", { name: `Load ${DELIVERY_PAGE} older` }).waitFor();
    await checkDarkAtBothSizes(f.page, storage, "the delivery list with its pager");
  }, 60_000);
});
