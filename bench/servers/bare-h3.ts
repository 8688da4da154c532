/**
 * The ceiling: a bare h3 v2 app answering GET from a Map, served the way lp serves its app (Node HTTP server).
 * With BENCH_SITE_HTML (a file), it also answers `/site/` with those bytes, as the site GET ceiling does.
 */
import { H3, HTTPResponse } from "h3";
import { toNodeHandler } from "h3/node";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const items = new Map<string, unknown>();
for (let i = 0; i < 1000; i++) {
  items.set(`item-${i}`, { id: `item-${i}`, title: `Item ${i}`, price: i, product_type: "physical", created_at: new Date(0).toISOString() });
}

const app = new H3();
// Idiomatic h3: return the value and let h3 serialise it on its fast response path.
app.get("/items/:id", (event) => ({ data: items.get(event.context.params!.id) ?? null }));
const siteHtml = process.env.BENCH_SITE_HTML ? readFileSync(process.env.BENCH_SITE_HTML, "utf8") : null;
if (siteHtml !== null) app.get("/site/", () => new HTTPResponse(siteHtml, { headers: { "content-type": "text/html; charset=utf-8" } }));

// A plain Node HTTP server, as lp serves its app (server/src/http/listen.ts).
const server = createServer(toNodeHandler(app));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, path: siteHtml === null ? "/items/item-1" : "/site/" })}\n`);
process.on("SIGTERM", async () => {
  server.closeAllConnections();
  server.close();
  process.exit(0);
});
