import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

const inline = { title: "Lamp", description: "A desk lamp.", price: 40, product_type: "physical" };
/** 64,000 digits: what once kept a colour or number pattern busy for seconds (issue 27). */
const digits = "1".repeat(64_000);

type Issue = { path: string; code: string; message: string };
const issuesAt = (res: { status: number; json: any }, path: string): Issue[] => {
  expect(res.status).toBe(400);
  expect(res.json.error.code).toBe("validation_error");
  return (res.json.error.details.issues as Issue[]).filter((issue) => issue.path === path);
};

/**
 * A string over its length is refused by the length check alone: the pattern after it never runs, so its
 * cost cannot grow with the input. (How fast these answer is measured in the bench, not here.)
 */
describe("long strings stop at their length check", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it("a 64 kB colour on POST /pages gets the length issue and no pattern issue", async () => {
    const res = await t.call("POST", "pages", { body: { product: inline, design: { primary_color: `rgb(${digits}` } } });
    const issues = issuesAt(res, "design.primary_color");
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/at most 64 characters/);
  });

  it("a 64 kB colour or font stack on PATCH /pages/{id} likewise", async () => {
    const created = await t.call("POST", "pages", { body: { product: inline } });
    await t.core.onIdle();
    const page = (await t.call("GET", created.json.data.poll_url)).json.data.page_id;
    const res = await t.call("PATCH", `pages/${page}`, { body: { global_theme: { primaryColor: `hsl(${digits}`, fontFamily: `"${"a".repeat(64_000)}` } } });
    expect(issuesAt(res, "global_theme.primaryColor").map((i) => i.message)).toEqual([expect.stringMatching(/at most 64 characters/)]);
    expect(issuesAt(res, "global_theme.fontFamily").map((i) => i.message)).toEqual([expect.stringMatching(/at most 200 characters/)]);
  });

  it("a colour within the length still meets the pattern", async () => {
    const res = await t.call("POST", "pages", { body: { product: inline, design: { primary_color: "rgb(1.5, 20, 300.25)", text_color: "rgb(1..5, 2, 3)" } } });
    expect(issuesAt(res, "design.primary_color")).toEqual([]);
    expect(issuesAt(res, "design.text_color").map((i) => i.message)).toEqual([expect.stringMatching(/must be a colour/)]);
  });

  it("a multipart number is read only up to 64 characters", async () => {
    const form = (price: string) => {
      const f = new FormData();
      f.set("title", "Poster");
      f.set("product_type", "physical");
      f.set("price", price);
      return f;
    };
    for (const price of [`${digits}x`, `${"0".repeat(100)}5`]) {
      const issues = issuesAt(await t.call("POST", "products", { raw: form(price) }), "price");
      expect(issues.map((i) => i.message)).toEqual(["must be a number"]);
    }
    const fine = await t.call("POST", "products", { raw: form(` ${"0".repeat(40)}12.50 `) });
    expect(fine.status).toBe(201);
    expect(fine.json.data.price).toBe(12.5);
  });
});
