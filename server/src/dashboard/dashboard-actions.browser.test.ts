import { createReceiver } from "@lp/webhooks";
import { describe, expect, it } from "vitest";
import { basicAuth, useDashboardFixture } from "./browser-fixture.js";
import { browserAvailable, VIEWPORTS, waitForView } from "./browser-harness.js";

/** The dashboard's actions in headless Chromium: runs followed live, real outcomes, the request log's tools, products. */
describe.skipIf(!browserAvailable).each(["memory", "sqlite"] as const)("dashboard actions in Chromium (%s)", (storage) => {
  const f = useDashboardFixture(storage);

  it("shows a generation the moment it starts, each step live with its duration, and a failed one with its error", async () => {
    f.server.core.delays.generationStepMs = 250;
    await f.page.goto(`${f.server.url}/_dashboard/#/pages`);
    await waitForView(f.page, "Pages");
    await f.page.getByRole("button", { name: "Generate" }).click();
    // Listed while it runs, before any page exists.
    const running = f.page.locator('li.job[data-status="processing"]').first();
    await running.waitFor();
    const id = await running.getAttribute("data-id");
    const done = f.page.locator(`li.job[data-id="${id}"][data-status="completed"]`);
    await done.waitFor({ timeout: 15_000 });
    await expect(done.locator(".timeline li.done .took").count()).resolves.toBe(4);
    await f.page.getByRole("status").filter({ hasText: "Page generated" }).waitFor();
    // The same with Lp-Simulate: generation_failed chosen in the UI: the job fails at its images, and says why.
    await f.page.goto(`${f.server.url}/_dashboard/#/settings`);
    await f.page.getByLabel("Mode").selectOption("generation_failed");
    await f.page.goto(`${f.server.url}/_dashboard/#/pages`);
    await waitForView(f.page, "Pages");
    await f.page.getByText("Lp-Simulate: generation_failed is on").waitFor();
    await f.page.getByRole("button", { name: "Generate" }).click();
    const failed = f.page.locator('li.job[data-status="failed"]').first();
    await failed.waitFor({ timeout: 15_000 });
    await expect(failed.locator(".timeline li.failed").first().getAttribute("data-step")).resolves.toBe("generating_images");
    await expect(failed.textContent()).resolves.toContain("generation_failed");
    await f.page.getByRole("alert").filter({ hasText: "failed: generation_failed" }).waitFor();
    await f.page.goto(`${f.server.url}/_dashboard/#/settings`);
    await f.page.getByLabel("Mode").selectOption("");
    f.server.core.delays.generationStepMs = 0;
  });

  it("deploys a page from the UI and follows the timeline to succeeded, with each step's duration", async () => {
    f.server.core.delays.deploymentStepMs = 150;
    await f.page.goto(`${f.server.url}/_dashboard/#/page/${f.pageId}`);
    await f.page.getByRole("button", { name: "Deploy" }).click();
    await f.page.locator('li.deployment[data-status="deploying"]').first().waitFor();
    const done = f.page.locator('li.deployment[data-status="succeeded"]');
    await done.waitFor({ timeout: 15_000 });
    await expect(done.locator(".timeline li.done").count()).resolves.toBe(4);
    await expect(done.locator(".timeline .took").count()).resolves.toBe(3);
    await f.page.getByRole("status").filter({ hasText: "succeeded" }).waitFor();
    f.server.core.delays.deploymentStepMs = 0;
  });

  it("reports Verify and Send test against a receiver that is gone as refused, not done", async () => {
    const gone = await createReceiver();
    const made = await fetch(`${f.server.url}/v1/developer/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: basicAuth(f.server), "content-type": "application/json" },
      body: JSON.stringify({ url: `${gone.url}/gone`, events: ["page.created"] }),
    });
    expect(made.status).toBe(201);
    const endpointId = (await made.json()).data.id as string;
    await gone.close();
    await f.page.goto(`${f.server.url}/_dashboard/#/webhooks`);
    await waitForView(f.page, "Webhooks");
    const row = f.page.locator("tr", { has: f.page.getByText(endpointId) });
    await row.getByRole("button", { name: "Verify" }).click();
    await f.page.getByRole("alert").filter({ hasText: "Verify: the endpoint failed the challenge" }).waitFor();
    await row.getByRole("button", { name: "Send test" }).click();
    await f.page.getByRole("alert").filter({ hasText: /Send test: (refused by the endpoint|skipped|.*not active)/ }).waitFor({ timeout: 15_000 });
    expect(await f.page.getByRole("status").filter({ hasText: "done" }).count()).toBe(0);
  });

  it("request log: hides the dashboard's own calls unless asked, opens a linked exchange under its row, copies it as curl, replays it", async () => {
    await f.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.server.url });
    const made = await f.api(`/v1/accounts/${f.server.credentials.account_id}/products`, { method: "POST", body: JSON.stringify({ title: "Oak Spoon", price: 9, product_type: "physical" }) });
    const id = made.headers.get("x-request-id")!;
    // The products view lists them through the dashboard's relay: calls of its own.
    await f.page.goto(`${f.server.url}/_dashboard/#/products`);
    await waitForView(f.page, "Products");
    await f.page.goto(`${f.server.url}/_dashboard/#/requests`);
    await waitForView(f.page, "Requests");
    await f.page.locator("tbody tr").first().waitFor();
    expect(await f.page.locator("td", { hasText: "(dashboard)" }).count()).toBe(0);
    await f.page.getByLabel("Show the dashboard's own calls").check();
    await f.page.locator("td", { hasText: "(dashboard)" }).first().waitFor();
    // A deep link opens the exchange under its own row, on screen.
    await f.page.goto(`${f.server.url}/_dashboard/#/requests/${id}`);
    const panel = f.page.locator("tr.detail section.panel");
    await panel.waitFor();
    const box = (await panel.boundingBox())!;
    expect(box.y).toBeLessThan(VIEWPORTS.desktop.height);
    expect(box.y + box.height).toBeGreaterThan(0);
    await panel.getByRole("button", { name: "Copy as curl" }).click();
    await panel.getByRole("status").filter({ hasText: "Copied as curl" }).waitFor();
    const curl = await f.page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl -X POST '${f.server.url}/v1/accounts/${f.server.credentials.account_id}/products'`);
    expect(curl).toContain("$LP_TOKEN");
    expect(curl).toContain("Oak Spoon");
    expect(curl).not.toContain(f.server.credentials.token);
    await panel.getByRole("button", { name: "Replay" }).click();
    await f.page.waitForFunction((old) => location.hash.startsWith("#/requests/req_") && !location.hash.endsWith(old), id);
    await f.page.locator("tr.detail section.panel h2", { hasText: "→ 201" }).waitFor();
    // The replay's own label renders with its exchange: wait for it rather than read the panel once.
    await f.page.locator("tr.detail section.panel", { hasText: "replay" }).waitFor();
    const products = await (await f.api(`/v1/accounts/${f.server.credentials.account_id}/products?per_page=100`)).json();
    expect(products.data.filter((p: { title: string }) => p.title === "Oak Spoon")).toHaveLength(2);
  });

  it("products: offers only the types the API takes, edits every field from the product's own address, and deletes", async () => {
    // A fresh load: a hash change alone would keep the previous test's view state in the tab.
    await f.page.goto("about:blank");
    await f.page.goto(`${f.server.url}/_dashboard/#/products`);
    await waitForView(f.page, "Products");
    const form = f.page.locator("form", { has: f.page.getByRole("heading", { name: "New product" }) });
    await expect(form.getByLabel("Type").locator("option").allTextContents()).resolves.toEqual(["physical", "service"]);
    await form.getByLabel("Title").fill("Clay Cup");
    await form.getByLabel("Price", { exact: true }).fill("18");
    await form.getByLabel("Original price").fill("22");
    await form.getByLabel("Type").selectOption("service");
    await form.getByRole("button", { name: "Create product" }).click();
    await f.page.getByRole("status").filter({ hasText: "Created Clay Cup." }).waitFor();
    await f.page.getByRole("link", { name: "Edit Clay Cup" }).click();
    expect(new URL(f.page.url()).hash).toMatch(/^#\/products\/[0-9a-f-]{36}/);
    const editor = f.page.locator("section.panel");
    // The editor fills itself from the product once it has loaded: edit after that, or the load overwrites the edit.
    await expect.poll(() => editor.getByLabel("Title").inputValue()).toBe("Clay Cup");
    await editor.getByLabel("Delivery price").fill("3.5");
    await editor.getByLabel("Title").fill("Clay Cup, glazed");
    await editor.getByRole("button", { name: "Save product" }).click();
    await editor.getByRole("status").filter({ hasText: "Saved Clay Cup, glazed." }).waitFor();
    const id = new URL(f.page.url()).hash.split("/")[2].split("?")[0];
    const saved = await (await f.api(`/v1/accounts/${f.server.credentials.account_id}/products/${id}`)).json();
    expect(saved.data).toMatchObject({ title: "Clay Cup, glazed", price: 18, original_price: 22, delivery_price: 3.5, product_type: "service" });
    f.page.once("dialog", (dialog) => void dialog.accept());
    await editor.getByRole("button", { name: "Delete product" }).click();
    await f.page.waitForFunction(() => location.hash.startsWith("#/products") && !location.hash.includes("-"));
    expect((await f.api(`/v1/accounts/${f.server.credentials.account_id}/products/${id}`)).status).toBe(404);
  });

});
