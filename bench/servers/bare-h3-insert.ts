/**
 * The ceiling of POST product on the embedded store: a bare h3 v2 app that reads the JSON body, checks it by
 * hand (title, price, product type, description) and inserts one row into an SQLite file with node:sqlite, in
 * WAL at `synchronous=NORMAL`, as lp's embedded store runs, one autocommit statement per request. No event, no
 * idempotency, no quota: what is left when everything lp adds is taken away. Environment: BENCH_DIR (the
 * folder of its database). Prints { url, path }.
 */
import { H3, HTTPError } from "h3";
import { toNodeHandler } from "h3/node";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const db = new DatabaseSync(join(process.env.BENCH_DIR!, "bare.db"));
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = NORMAL");
db.exec("CREATE TABLE items (id TEXT PRIMARY KEY, title TEXT NOT NULL, price REAL NOT NULL, product_type TEXT NOT NULL, description TEXT, created_at TEXT NOT NULL)");
const insert = db.prepare("INSERT INTO items (id, title, price, product_type, description, created_at) VALUES (?, ?, ?, ?, ?, ?)");
const TYPES = new Set(["physical", "digital", "service"]);

const app = new H3();
app.post("/items", async (event) => {
  const body = (await event.req.json().catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new HTTPError({ status: 400, message: "a JSON object" });
  const { title, price, product_type, description } = body;
  if (typeof title !== "string" || title.length === 0 || title.length > 200) throw new HTTPError({ status: 422, message: "title" });
  if (typeof price !== "number" || !Number.isFinite(price) || price < 0) throw new HTTPError({ status: 422, message: "price" });
  if (typeof product_type !== "string" || !TYPES.has(product_type)) throw new HTTPError({ status: 422, message: "product_type" });
  if (description !== undefined && (typeof description !== "string" || description.length > 5000)) throw new HTTPError({ status: 422, message: "description" });
  const item = { id: randomUUID(), title, price, product_type, description: description ?? null, created_at: new Date().toISOString() };
  insert.run(item.id, item.title, item.price, item.product_type, item.description, item.created_at);
  event.res.status = 201;
  return item;
});

// A plain Node HTTP server, as lp serves its app (server/src/http/listen.ts).
const server = createServer(toNodeHandler(app));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, path: "/items" })}\n`);
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  db.close();
  process.exit(0);
});
