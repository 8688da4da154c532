import { it } from "vitest";
import { hookStatements } from "../core/src/db/statement-hooks.js";
import { createTestApp } from "../server/src/testing/test-app.js";
it("lists statements", async () => {
  const app = await createTestApp({ storage: "sqlite" });
  const seen: string[] = [];
  await app.call("POST", `/v1/accounts/${app.account}/products`, { body: { title: "x", price: 5, product_type: "service" } });
  hookStatements((app as any).core.database, async (s, run) => (seen.push(`${s.kind} ${s.query.sql.slice(0, 160)}`), run()));
  const made = await app.call("POST", `/v1/accounts/${app.account}/products`, { body: { title: "y", price: 5, product_type: "service" } });
  console.log("POST", made.status, "\n" + seen.join("\n"));
  seen.length = 0;
  await app.call("GET", `/v1/accounts/${app.account}/products/${made.json.data.id}`);
  console.log("GET\n" + seen.join("\n"));
  await app.close();
});
