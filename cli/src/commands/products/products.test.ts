import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../runtime/errors.js";
import { createHarness, type Harness } from "../../testing/harness.js";
import { toOptions as createOptions } from "./create.js";
import { toOptions as listOptions } from "./list.js";
import { toOptions as updateOptions } from "./update.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

describe("products: parsing", () => {
  it("turns create flags into typed options and names missing flags without a terminal", () => {
    const flags = { title: "Lamp", price: "39.90", type: "physical", deliveryPrice: "5", image: ["a.png"], json: true };
    expect(createOptions({ args: [], flags }, { canPrompt: false })).toEqual({
      title: "Lamp", price: 39.9, type: "physical", description: undefined, originalPrice: undefined, deliveryPrice: 5, images: ["a.png"], idempotencyKey: undefined, json: true,
    });
    expect(() => createOptions({ args: [], flags: { title: "x" } }, { canPrompt: false })).toThrow("Missing --price, --type.");
    expect(createOptions({ args: [], flags: {} }, { canPrompt: true }).title).toBeUndefined();
    expect(() => createOptions({ args: [], flags: { ...flags, type: "digital" } }, { canPrompt: false })).toThrow(UsageError);
  });

  it("maps list flags to the query", () => {
    const opts = listOptions({ args: [], flags: { type: "service", query: "yoga", createdAfter: "2026-01-01", sort: "-price", limit: "5" } });
    expect(opts).toEqual({ limit: 5, all: false, json: false, query: { product_type: "service", q: "yoga", created_after: "2026-01-01", sort: "-price" } });
  });

  it("builds an update body: empty description clears, --reorder id=order, --remove-image", () => {
    const opts = updateOptions({ args: ["p1"], flags: { description: "", removeImage: ["i1"], reorder: ["i2=0", "i3=4"] } });
    expect(opts.body).toEqual({ description: null, remove_image_ids: ["i1"], reorder_images: [{ id: "i2", display_order: 0 }, { id: "i3", display_order: 4 }] });
    expect(() => updateOptions({ args: ["p1"], flags: {} })).toThrow(/Nothing to update/);
    expect(() => updateOptions({ args: ["p1"], flags: { reorder: ["i2"] } })).toThrow(/--reorder/);
  });
});

describe("products: commands against the app", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("creates with a local file (multipart) and a URL, then gets, updates, lists and deletes", async () => {
    writeFileSync(join(h.home, "dot.png"), PNG);
    const created = await h.lp(["products", "create", "--title", "Poster", "--price", "12", "--type", "physical", "--image", "dot.png", "--image", "https://cdn.example/b.jpg", "--json"]);
    expect(created.code).toBe(0);
    const product = created.json();
    expect(product.images.map((i: { media_type: string }) => i.media_type).sort()).toEqual(["image/jpeg", "image/png"]);
    const got = await h.lp(["products", "get", product.id, "--json"]);
    expect(got.json()).toEqual(product);
    const updated = await h.lp(["products", "update", product.id, "--price", "15", "--description", "Big", "--remove-image", product.images[0].id, "--json"]);
    expect(updated.json()).toMatchObject({ price: 15, description: "Big", images: [{ id: product.images[1].id }] });
    const listed = await h.lp(["products", "list", "--json"]);
    expect(listed.json().map((p: { id: string }) => p.id)).toEqual([product.id]);
    const deleted = await h.lp(["products", "delete", product.id]);
    expect(deleted).toMatchObject({ code: 0, stdout: "" });
    expect(deleted.stderr).toContain(`Deleted product ${product.id}`);
    const missing = await h.lp(["products", "get", product.id]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: No product '.+' was found\. \(code: not_found, request: req_\w+\)\n$/);
  });

  it("pages through with --limit and --all, and prints a table on a terminal, TSV when piped", async () => {
    for (const title of ["a", "b", "c"]) await h.lp(["products", "create", "--title", title, "--price", "1", "--type", "service"]);
    expect((await h.lp(["products", "list", "--limit", "2", "--sort", "title", "--json"])).json().map((p: { title: string }) => p.title)).toEqual(["a", "b"]);
    expect((await h.lp(["products", "list", "--all", "--json"])).json()).toHaveLength(3);
    const table = await h.lp(["products", "list", "--sort", "title"], { tty: true });
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+TITLE\s+TYPE\s+PRICE\s+CREATED$/);
    const tsv = await h.lp(["products", "list", "--sort", "title"]);
    expect(tsv.stdout.split("\n")[0].split("\t").slice(1, 4)).toEqual(["a", "service", "1"]);
  });

  it("prompts for missing values on a terminal, and only there", async () => {
    const asked: string[] = [];
    const prompt = {
      input: async (message: string) => (asked.push(message), message === "Title" ? "Asked lamp" : "20"),
      confirm: async () => true,
      select: async <T extends string>(message: string, choices: readonly T[]) => (asked.push(message), choices[1]),
    };
    const result = await h.lp(["products", "create", "--json"], { tty: true }, { prompt });
    expect(asked).toEqual(["Title", "Price", "Product type"]);
    expect(result.json()).toMatchObject({ title: "Asked lamp", price: 20, product_type: "service" });
    const piped = await h.lp(["products", "create"], {}, { prompt });
    expect(piped).toMatchObject({ code: 2, stdout: "" });
    expect(piped.stderr).toContain("Missing --title, --price, --type.");
  });

  it("exits 4 for a bad token and 2 for a missing file", async () => {
    expect((await h.lp(["products", "list"], { env: { LP_TOKEN: "nope" } })).code).toBe(4);
    const file = await h.lp(["products", "create", "--title", "x", "--price", "1", "--type", "service", "--image", "missing.png"]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("--image: 'missing.png' is neither an http(s) URL nor a readable file.");
  });
});
