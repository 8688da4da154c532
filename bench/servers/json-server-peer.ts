/** The peer users reach for: json-server 0.17 serving one product resource from an in-memory database. */
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

const require = createRequire(import.meta.url);
const jsonServer = require("json-server");

const db = { products: Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, title: `Item ${i}`, price: i, product_type: "physical" })) };
const app = jsonServer.create();
// No logger, as lp's access log is off in the same measurement.
app.use(jsonServer.defaults({ logger: false }));
app.use(jsonServer.router(db));
const server = app.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, path: "/products/2" })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
