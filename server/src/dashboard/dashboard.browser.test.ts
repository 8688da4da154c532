import { describe, expect, it } from "vitest";
import { useDashboardFixture } from "./browser-fixture.js";
import { ARTIFACTS, browserAvailable, DOCS, expectNoAxeViolations, sidewaysOverflow, VIEWPORTS, waitForView } from "./browser-harness.js";

/** The dashboard in headless Chromium against a real server: access rules, live views, every view with axe at two sizes, keyboard. */
describe.skipIf(!browserAvailable).each(["memory", "sqlite"] as const)("dashboard in Chromium (%s)", (storage) => {
  const f = useDashboardFixture(storage);

  it("keeps the session in an HttpOnly, SameSite=Strict cookie scoped to /_dashboard", async () => {
    const [cookie] = await f.context.cookies(f.server.url + "/_dashboard/");
    expect(cookie).toMatchObject({ name: "lp_dashboard", httpOnly: true, sameSite: "Strict", path: "/_dashboard" });
    expect(await f.page.evaluate(() => document.cookie)).toBe("");
  });

  it("refuses a change sent without the CSRF token, accepts it with", async () => {
    const statuses = await f.page.evaluate(async (account) => {
      const body = JSON.stringify({ method: "GET", path: `/v1/accounts/${account}/products` });
      const token = document.querySelector('meta[name="lp-csrf"]')!.getAttribute("content")!;
      const without = await fetch("/_dashboard/api/call", { method: "POST", body, headers: { "content-type": "application/json" } });
      const withToken = await fetch("/_dashboard/api/call", { method: "POST", body, headers: { "content-type": "application/json", "x-csrf-token": token } });
      return [without.status, withToken.status];
    }, f.server.credentials.account_id);
    expect(statuses).toEqual([403, 200]);
  });

  it("shows a product created over the API without a reload", async () => {
    await f.page.goto(`${f.server.url}/_dashboard/#/products`);
    await f.page.getByRole("heading", { name: "Linen Apron" }).waitFor();
    const res = await f.api(`/v1/accounts/${f.server.credentials.account_id}/products`, { method: "POST", body: JSON.stringify({ title: "Walnut Board", price: 25, product_type: "physical" }) });
    expect(res.status).toBe(201);
    await f.page.getByRole("heading", { name: "Walnut Board" }).waitFor({ timeout: 5_000 });
    await f.page.goto(`${f.server.url}/_dashboard/#/requests`);
    await f.page.getByRole("cell", { name: `/v1/accounts/${f.server.credentials.account_id}/products` }).first().waitFor();
  });

  it("opens a failed delivery, retries it, and shows the new attempt", async () => {
    await f.server.core.onIdle();
    await f.page.goto(`${f.server.url}/_dashboard/#/webhooks`);
    await f.page.getByRole("button", { name: "Deliveries" }).first().click();
    const failed = f.page.locator('li.delivery[data-status="failed"]').first();
    await failed.locator("summary").click();
    await expect(failed.locator("tr.attempt").count()).resolves.toBe(1);
    const id = await failed.getAttribute("data-id");
    await failed.getByRole("button", { name: "Retry" }).click();
    const succeeded = f.page.locator(`li.delivery[data-id="${id}"][data-status="succeeded"]`);
    await succeeded.waitFor({ timeout: 10_000 });
    if (!(await succeeded.locator("details").getAttribute("open"))) await succeeded.locator("summary").click();
    await expect(succeeded.locator("tr.attempt").count()).resolves.toBe(2);
  });

  // The views render what the API answers, whose shapes do not depend on the storage (every answer is checked
  // against its schema on memory, fs and Redis by the route suites), so they are swept on memory only; fs keeps the
  // tests above and below, where the storage is what is exercised (live events, retries). Each view is loaded once,
  // then resized and switched between colour schemes in place: its layout and colours are CSS media queries only
  // (no script reads the width or the scheme), so that is what a fresh load at that size and scheme shows. Sideways
  // scroll is checked in all four states; axe, once per scheme: light at 1440x900 and dark at 390x844, so every view
  // passes it at both sizes and in both schemes.
  const axeStates = ["desktop light", "phone dark"];
  const views = [
    ["requests", "Requests"],
    ["accounts", "Accounts"],
    ["products", "Products"],
    ["pages", "Pages"],
    ["page", "Page"],
    ["webhooks", "Webhooks"],
    ["events", "Send an event"],
    ["settings", "Faults and data"],
  ] as const;
  for (const [view, heading] of storage === "memory" ? views : []) {
    const title = `has no sideways scroll on the ${view} view at 1440x900 and 390x844, light and dark, and no axe violations in either scheme`;
    it(title, async () => {
      await f.page.setViewportSize(VIEWPORTS.desktop);
      await f.page.emulateMedia({ colorScheme: "light" });
      await f.page.goto("about:blank");
      await f.page.goto(`${f.server.url}/_dashboard/#/${view === "page" ? `page/${f.pageId}` : view}`);
      await waitForView(f.page, heading);
      // Check the panels that open inside a view too: one exchange of the log, one endpoint's deliveries.
      if (view === "requests") await f.page.locator("td button.link").first().click();
      if (view === "webhooks") await f.page.getByRole("button", { name: "Deliveries" }).first().click();
      if (view === "products") await f.page.getByRole("link", { name: /^Edit / }).first().click();
      if (view === "requests" || view === "webhooks" || view === "products") await f.page.locator("section.panel").first().waitFor();
      await f.page.waitForFunction(() => !document.querySelector("main")?.textContent?.includes("Loading..."));
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        for (const scheme of ["light", "dark"] as const) {
          const state = `${view} at ${size}, ${scheme}`;
          await f.page.setViewportSize(viewport);
          await f.page.emulateMedia({ colorScheme: scheme });
          // The scheme the page really uses: a dark run that rendered light colours would check nothing new.
          const background = await f.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
          expect(background, state).toBe(scheme === "dark" ? "rgb(11, 15, 23)" : "rgb(249, 250, 251)");
          if (axeStates.includes(`${size} ${scheme}`)) await expectNoAxeViolations(f.page, state);
          expect(await sidewaysOverflow(f.page), state).toBe("0");
          const name = `${view}${size === "phone" ? "-phone" : ""}${scheme === "dark" ? "-dark" : ""}`;
          await f.page.screenshot({ path: `${ARTIFACTS}/dashboard-${name}.png`, fullPage: true });
          // The docs show every view light at both sizes, and dark on the laptop.
          if (DOCS && !(scheme === "dark" && size === "phone")) await f.page.screenshot({ path: `${DOCS}${name}.png`, fullPage: false });
        }
      }
      await f.page.emulateMedia({ colorScheme: "light" });
      await f.page.setViewportSize(VIEWPORTS.desktop);
    });
  }

  it("works from the keyboard: skip link, then the navigation", async () => {
    await f.page.goto(`${f.server.url}/_dashboard/#/requests`);
    await f.page.reload(); // a fresh load: focus starts at the top of the document
    await f.page.getByRole("heading", { level: 1, name: "Requests" }).waitFor();
    await f.page.keyboard.press("Tab");
    await expect(f.page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("Skip to content");
    await f.page.keyboard.press("Enter");
    await expect(f.page.evaluate(() => document.activeElement?.id)).resolves.toBe("main");
    await f.page.focus('nav a[href="#/products"]');
    await f.page.keyboard.press("Enter");
    await f.page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
    expect(new URL(f.page.url()).hash).toBe("#/products");
    // Focus moves to the new view once it has rendered (an effect after paint): wait for it, then
    // Shift+Tab from the main region goes back into the navigation.
    await f.page.waitForFunction(() => document.activeElement?.id === "main");
    await f.page.keyboard.press("Shift+Tab");
    await expect(f.page.evaluate(() => document.activeElement?.closest("nav") !== null)).resolves.toBe(true);
  });
});
