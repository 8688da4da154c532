import { it } from "vitest";
import { createTestApp } from "../testing/test-app.js";
it("probe", async () => {
  const t = await createTestApp({ storage: "fs" });
  const paths = [
    "products/../../../etc", "products/%2e%2e", "products/%2e%2e%2fx", "products/..%2f..%2fx", "products/not-a-uuid",
    "products/00000000-0000-4000-8000-000000000000", "products/00000000-0000-4000-8000-00000000000G",
    "/v1/accounts/..%2facct_dev/products", "/v1/accounts/%2e%2e/products", "/v1/accounts/acct%20dev/products", "/v1/accounts/-x/products",
    "/v1/accounts/" + "a".repeat(70) + "/products", "products/%", "products/%zz", "/v1/accounts/acct_dev/products/", "/v1/accounts/acct_dev//products",
    "products/00000000-0000-4000-8000-000000000000/", "products/ABCDEF00-0000-4000-8000-000000000000",
  ];
  for (const p of paths) for (const m of ["GET", "PATCH", "DELETE"]) {
    const r = await t.call(m, p, m === "PATCH" ? { body: { title: "x" } } : {});
    console.log(m, p, r.status, r.text.slice(0, 150));
  }
  for (const [m, p] of [["PUT", "products"], ["DELETE", "products"], ["POST", "products/00000000-0000-4000-8000-000000000000"], ["GET", "/healthz"], ["POST", "/healthz"], ["GET", "/nope"], ["GET", "/v1/openapi.json"], ["POST", "/v1/openapi.json"]]) {
    const r = await t.call(m, p, {});
    console.log(m, p, r.status, r.headers.get("allow"), r.text.slice(0, 150));
  }
  await t.close();
});
