import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";

describe("lp api", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("sends raw requests with the credentials of the path's plane and {account_id} filled in", async () => {
    const created = await h.lp(["api", "POST", "/v1/accounts/{account_id}/products", "-d", '{"title":"Mug","price":9,"product_type":"physical"}']);
    expect(created.code).toBe(0);
    expect(created.json().data.title).toBe("Mug");
    const listed = await h.lp(["api", "GET", "/v1/accounts/{account_id}/products?per_page=1"]);
    expect(listed.json().pagination).toEqual({ next_cursor: null, has_more: false });
    expect((await h.lp(["api", "GET", "/v1/developer/webhook-endpoints"])).json().data).toEqual([]);
    expect((await h.lp(["api", "GET", "/_admin/export"])).json().format).toBe("lp-export");
  });

  it("reads the body from stdin with @- and prints an error body before exiting non-zero", async () => {
    const result = await h.lp(["api", "post", "/v1/accounts/{account_id}/products", "--data", "@-"], { stdin: '{"title":""}' });
    expect(result.code).toBe(1);
    expect(result.json().error.code).toBe("validation_error");
    expect(result.stderr).toContain("code: validation_error");
    const unauthorised = await h.lp(["api", "GET", "/v1/accounts/{account_id}/products", "-H", "authorization: Bearer nope"]);
    expect(unauthorised.code).toBe(4);
    expect((await h.lp(["api", "FETCH", "/x"])).code).toBe(2);
  });
});
