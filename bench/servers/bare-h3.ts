/** The ceiling: a bare h3 v2 app answering GET from a Map, served the way lp serves its app (Node HTTP server). */
import { H3 } from "h3";
import { toNodeHandler } from "h3/node";
import { createServer } from "node:http";

const items = new Map<string, unknown>();
for (let i = 0; i < 1000; i++) {
  items.set(`item-${i}`, { id: `item-${i}`, title: `Item ${i}`, price: i, product_type: "physical", created_at: new Date(0).toISOString() });
}

const app = new H3();
// Idiomatic h3: return the value and let h3 serialise it on its fast response path.
app.get("/items/:id", (event) => ({ data: items.get(event.context.params!.id) ?? null }));

// A plain Node HTTP server, as lp serves its app (server/src/http/listen.ts).
const server = createServer(toNodeHandler(app));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, path: "/items/item-1" })}\n`);
process.on("SIGTERM", async () => {
  server.closeAllConnections();
  server.close();
  process.exit(0);
});
