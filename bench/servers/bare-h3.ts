/** The ceiling: a bare h3 v2 app answering GET from a Map, served the way lp serves its app. */
import { H3 } from "h3";
import { toNodeHandler } from "h3/node";
import { listen } from "listhen";

const items = new Map<string, unknown>();
for (let i = 0; i < 1000; i++) {
  items.set(`item-${i}`, { id: `item-${i}`, title: `Item ${i}`, price: i, product_type: "physical", created_at: new Date(0).toISOString() });
}

const app = new H3();
// Idiomatic h3: return the value and let h3 serialise it on its fast response path.
app.get("/items/:id", (event) => ({ data: items.get(event.context.params!.id) ?? null }));

const listener = await listen(toNodeHandler(app), { hostname: "127.0.0.1", port: 0, autoClose: false, qr: false, showURL: false, public: false });
const address = listener.server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, path: "/items/item-1" })}\n`);
process.on("SIGTERM", async () => {
  await listener.close();
  process.exit(0);
});
