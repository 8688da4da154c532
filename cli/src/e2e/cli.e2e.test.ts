import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, spawnLp, startServe, type Served } from "./processes.js";

describe("lp (built) against lp serve", () => {
  let s: Served;
  beforeAll(async () => {
    assertBuilt();
    s = await startServe(["--seed"]);
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it("prints the version and help, exit 0", async () => {
    expect(await s.lp(["--version"])).toMatchObject({ code: 0, stdout: "0.1.0\n" });
    const help = await s.lp(["products", "create", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
  });

  it("round-trips a product with --json", async () => {
    const created = await s.lp(["products", "create", "--title", "E2E lamp", "--price", "19.5", "--type", "physical", "--json"]);
    expect(created.code).toBe(0);
    const product = created.json();
    expect(product).toMatchObject({ title: "E2E lamp", price: 19.5, images: [] });
    expect((await s.lp(["products", "get", product.id, "--json"])).json()).toEqual(product);
    expect((await s.lp(["products", "list", "--query", "e2e", "--json"])).json().map((p: { id: string }) => p.id)).toEqual([product.id]);
    expect((await s.lp(["products", "list", "--all", "--json"])).json()).toHaveLength(6);
    expect((await s.lp(["products", "update", product.id, "--price", "21", "--json"])).json().price).toBe(21);
    expect((await s.lp(["products", "delete", product.id, "--json"])).json()).toEqual({ id: product.id, deleted: true });
  });

  it("exits 2 for usage errors, 4 for a bad token, 1 for a 404, with one error line", async () => {
    const unknown = await s.lp(["products", "list", "--bogus"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    expect((await s.lp(["frobnicate"])).code).toBe(2);
    const badToken = await s.lp(["products", "list"], { env: { LP_TOKEN: "lp_wrong" } });
    expect(badToken.code).toBe(4);
    expect(badToken.stderr).toMatch(/^Error: .+ \(code: unauthenticated, request: req_[0-9a-f]+\)\n$/);
    const missing = await s.lp(["products", "get", "00000000-0000-4000-8000-000000000000"]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toMatch(/^Error: .+ \(code: not_found, request: req_[0-9a-f]+\)\n$/);
  });

  it("never prompts without a terminal: a missing value is a usage error naming the flag", async () => {
    // Stdin stays an open pipe: a prompt would hang here instead of exiting.
    const proc = spawnLp(["products", "create", "--title", "No prompt"], { env: s.env, cwd: s.sandbox.dir });
    expect(await proc.exited).toBe(2);
    expect(proc.stderr).toContain("Missing --price, --type.");
    proc.child.stdin!.destroy();
  });

  it("uses ./.lp/credentials.json when nothing else is configured", async () => {
    const bare = { PATH: s.sandbox.env.PATH, HOME: s.sandbox.dir, XDG_CONFIG_HOME: s.sandbox.env.XDG_CONFIG_HOME, NO_COLOR: "1" };
    const { runLp } = await import("./processes.js");
    const listed = await runLp(["products", "list", "--json"], { env: bare, cwd: s.sandbox.dir });
    expect(listed.code).toBe(0);
    expect(listed.json().length).toBeGreaterThanOrEqual(5);
    const sources = await runLp(["config", "list", "--json"], { env: bare, cwd: s.sandbox.dir });
    expect(sources.json().find((r: { key: string }) => r.key === "token").source).toBe("credentials-file");
  });

  it("drives the admin API: a read-only token cannot write (exit 4)", async () => {
    const token = (await s.lp(["admin", "tokens", "create", s.env.LP_ACCOUNT, "--scopes", "products:read", "--json"])).json();
    const env = { LP_TOKEN: token.token };
    expect((await s.lp(["products", "list", "--limit", "1", "--json"], { env })).code).toBe(0);
    const denied = await s.lp(["products", "create", "--title", "x", "--price", "1", "--type", "service"], { env });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain("code: insufficient_scope");
  });

  it("generates and deploys a page with --wait --json", async () => {
    const [product] = (await s.lp(["products", "list", "--limit", "1", "--json"])).json();
    const page = await s.lp(["pages", "create", "--product-id", product.id, "--language", "fr", "--wait", "--json"]);
    expect(page.code).toBe(0);
    expect(page.json()).toMatchObject({ status: "draft", product: { id: product.id } });
    const deployed = await s.lp(["pages", "deploy", page.json().id, "--wait", "--json"]);
    expect(deployed.code).toBe(0);
    expect(deployed.json()).toMatchObject({ status: "succeeded", deploy_step: null });
    const site = await fetch(deployed.json().deployed_url);
    expect(site.status).toBe(200);
  });

  it("seeds products with the sample images of fixtures/images, served as PNG", async () => {
    const [lamp] = (await s.lp(["products", "list", "--query", "oak desk lamp", "--json"])).json();
    const product = (await s.lp(["products", "get", lamp.id, "--json"])).json();
    expect(product.images).toHaveLength(1);
    const image = await fetch(product.images[0].url);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await image.arrayBuffer()).subarray(1, 4).toString("ascii")).toBe("PNG");
  });

  it("sends raw requests with lp api", async () => {
    const result = await s.lp(["api", "GET", "/v1/accounts/{account_id}/products?per_page=2"]);
    expect(result.code).toBe(0);
    expect(result.json().data).toHaveLength(2);
  });
});
