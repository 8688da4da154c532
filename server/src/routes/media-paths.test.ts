import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createTestApp, type TestApp } from "../testing/test-app.js";

/** Media paths are checked before they become storage keys (issue 27, point 6). */
describe.each(["memory", "sqlite"] as const)("media paths on %s storage", (storage) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ storage });
  });
  afterAll(async () => t.close());

  it("answers 404 to a path of thousands of segments, a long one, or odd characters, and logs no error", async () => {
    const errors = vi.spyOn(console, "error");
    try {
      for (const path of [`${"a/".repeat(3000)}b.png`, `products/${"a".repeat(300)}/b.png`, "a/b/c/d/e/f/g.png", "products/x/..%2f..%2fy.png", "products/x/y.exe"]) {
        const res = await t.call("GET", `/media/${path}`, { token: null });
        expectError(res, 404, "not_found");
      }
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
