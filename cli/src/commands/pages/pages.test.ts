import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";
import { toCheckoutField } from "./checkout-fields.js";
import { toOptions as createOptions } from "./create.js";
import { toOptions as updateOptions } from "./update.js";

const ctx = { canPrompt: false, io: { env: {} } } as Parameters<typeof createOptions>[1];

describe("pages: parsing", () => {
  it("reads --checkout-field key[?]:type[:label[:options]]", () => {
    expect(toCheckoutField("email:email")).toEqual({ field_key: "email", field_type: "email" });
    expect(toCheckoutField("notes?:textarea:Anything else?")).toEqual({ field_key: "notes", field_type: "textarea", label: "Anything else?", is_required: false });
    expect(toCheckoutField("size:select:Size:S|M|L")).toEqual({ field_key: "size", field_type: "select", label: "Size", options: ["S", "M", "L"] });
    expect(() => toCheckoutField("x:color")).toThrow(/type 'color' must be one of/);
    expect(() => toCheckoutField("x:text:X:a|b")).toThrow(/only for select/);
  });

  it("builds the body from --product-id or the inline product, never both", () => {
    const opts = createOptions({ args: [], flags: { productId: "p1", language: "fr", angle: "gift", primaryColor: "#336699" } }, ctx);
    expect(opts.body).toEqual({ product_id: "p1", options: { language: "fr", marketing_angle: "gift" }, design: { primary_color: "#336699" } });
    const inline = createOptions({ args: [], flags: { title: "Yoga", description: "1h", price: "20", type: "service" } }, ctx);
    expect(inline.body).toEqual({ product: { title: "Yoga", description: "1h", price: 20, product_type: "service" } });
    expect(() => createOptions({ args: [], flags: { productId: "p1", title: "x" } }, ctx)).toThrow(/not both/);
    expect(() => createOptions({ args: [], flags: { title: "x" } }, ctx)).toThrow("An inline product needs --description, --price, --type too.");
    expect(() => createOptions({ args: [], flags: {} }, ctx)).toThrow(/Missing --product-id/);
  });

  it("turns --theme and --seo pairs into merge patches (null removes)", () => {
    const opts = updateOptions({ args: ["p"], flags: { theme: ["primaryColor=#000"], seo: ["title=Hi", "noindex=true", "description=null"] } });
    expect(opts.body).toEqual({ global_theme: { primaryColor: "#000" }, seo_config: { title: "Hi", noindex: true, description: null } });
    expect(() => updateOptions({ args: ["p"], flags: {} })).toThrow(/Nothing to update/);
  });
});

describe("pages, jobs and deployments against the app", () => {
  let h: Harness;
  let productId: string;
  beforeEach(async () => {
    h = await createHarness();
    productId = (await h.lp(["products", "create", "--title", "Garden chair", "--price", "80", "--type", "physical", "--json"])).json().id;
  });
  afterEach(() => h.close());

  const createPage = async () => (await h.lp(["pages", "create", "--product-id", productId, "--wait", "--json"])).json();

  it("creates a page and waits for it, then lists, gets, updates and deletes it", async () => {
    const result = await h.lp(["pages", "create", "--product-id", productId, "--primary-color", "#336699", "--checkout-field", "size:select:Size:S|M", "--wait", "--json"]);
    expect(result.code).toBe(0);
    const page = result.json();
    expect(page).toMatchObject({ status: "draft", product: { id: productId }, global_theme: { primaryColor: "#336699" } });
    expect(result.stderr).toMatch(/Job .+: done/);
    expect((await h.lp(["pages", "list", "--json"])).json().map((p: { id: string }) => p.id)).toEqual([page.id]);
    expect((await h.lp(["pages", "get", page.id, "--json"])).json().id).toBe(page.id);
    const updated = await h.lp(["pages", "update", page.id, "--seo", "title=Chairs", "--theme", "primaryColor=#000000", "--json"]);
    expect(updated.json()).toMatchObject({ seo_config: { title: "Chairs" }, global_theme: { primaryColor: "#000000" } });
    expect((await h.lp(["pages", "delete", page.id])).code).toBe(0);
    expect((await h.lp(["pages", "get", page.id])).code).toBe(1);
  });

  it("without --wait prints the job; jobs get follows it", async () => {
    const accepted = (await h.lp(["pages", "create", "--product-id", productId, "--json"])).json();
    expect(Object.keys(accepted)).toEqual(["job_id", "poll_url"]);
    const job = (await h.lp(["jobs", "get", accepted.job_id, "--wait", "--json"])).json();
    expect(job).toMatchObject({ job_id: accepted.job_id, status: "completed", step: "done" });
  });

  it("prints the failed job and exits 1 with its code when generation fails", async () => {
    const result = await h.lp(["pages", "create", "--product-id", productId, "--simulate", "generation_failed", "--wait", "--json"]);
    expect(result.code).toBe(1);
    expect(result.json()).toMatchObject({ status: "failed", error: { code: "generation_failed" } });
    expect(result.stderr).toMatch(/^Error: Job .+ failed: .+ \(code: generation_failed\)$/m);
  });

  it("deploys with --wait and prints the succeeded deployment", async () => {
    const page = await createPage();
    const result = await h.lp(["pages", "deploy", page.id, "--wait", "--json"]);
    expect(result.code).toBe(0);
    const deployment = result.json();
    expect(deployment).toMatchObject({ page_id: page.id, status: "succeeded", deploy_step: null });
    expect(deployment.deployed_url).toMatch(/\/sites\//);
    const listed = await h.lp(["deployments", "list", page.id, "--status", "succeeded", "--json"]);
    expect(listed.json().map((d: { id: string }) => d.id)).toEqual([deployment.id]);
    expect((await h.lp(["deployments", "get", page.id, deployment.id, "--json"])).json().status).toBe("succeeded");
  });

  it("exits 1 with the deployment's error code when it fails", async () => {
    const page = await createPage();
    const result = await h.lp(["pages", "deploy", page.id, "--simulate", "deployment_failed", "--wait", "--json"]);
    expect(result.code).toBe(1);
    expect(result.json()).toMatchObject({ status: "failed" });
    expect(result.stderr).toMatch(new RegExp(`Deployment .+ failed: .+ \\(code: ${result.json().error_code}\\)`));
  });

  it("exits 8 with the last state when --wait times out, and 1 on a second deployment in flight", async () => {
    const page = await createPage();
    // A step delay holds the deployment on the test app's manual sleep: it stays in flight until close().
    h.app.core.delays.deploymentStepMs = 1000;
    const result = await h.lp(["pages", "deploy", page.id, "--wait", "--timeout", "0s", "--json"]);
    expect(result.code).toBe(8);
    expect(result.json()).toMatchObject({ status: "deploying" });
    expect(result.stderr).toMatch(/still pending .*lp deployments get/);
    const again = await h.lp(["pages", "deploy", page.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("code: deployment_in_progress");
  });
});
