/**
 * Which of lp's source files one `POST /products` runs, from the request's arrival to its commit and its answer
 * (one-off, not in `npm run bench`): V8's precise coverage (call counts per function) is reset after a warm-up,
 * one product is created through the API of an in-process server on `:memory:`, and the files of lp's own
 * workspaces with a function that ran are listed, by package. The delivery of its `product.created` is counted
 * apart (`--with-delivery`: an endpoint is registered first, and the worker's attempt runs before the second
 * look). Run: `npx tsx bench/post-files.ts [--with-delivery]`.
 */
import { Session } from "node:inspector/promises";
import { createServer } from "node:http";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { endpointCreateSchema } from "@lp/core";
import { startServer } from "../server/src/serve.js";
import { ROOT } from "./lib/root.js";

const withDelivery = process.argv.includes("--with-delivery");
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });

const server = await startServer({ storage: "memory", port: 0, log: null, admin: false });
const { account_id, token, application_id } = server.credentials;
const sink = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; data: { challenge?: string } };
    res.writeHead(200, { "content-type": "application/json" }).end(body.type === "webhook.verification" ? JSON.stringify({ challenge: body.data.challenge }) : "{}");
  });
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
if (withDelivery) {
  const port = (sink.address() as { port: number }).port;
  await server.core.webhooks.endpoints.create(application_id, endpointCreateSchema.parse({ url: `http://127.0.0.1:${port}/hooks`, events: ["product.created"] }));
}
const post = async () => {
  const response = await fetch(`${server.url}/v1/accounts/${account_id}/products`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Oak lamp", price: 49.5, product_type: "physical" }),
  });
  if (response.status !== 201) throw new Error(`POST answered ${response.status}`);
  await response.arrayBuffer();
};
// Warm: every module loaded and every lazy path taken once, so what is counted is the request's own work.
for (let i = 0; i < 3; i++) await post();
await server.core.onIdle();

/** lp's files with a function that ran since the last take, relative to the repository, by workspace. */
async function ranFiles(): Promise<string[]> {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith("file://")) continue;
    const path = relative(ROOT, fileURLToPath(script.url));
    if (path.startsWith("..") || path.includes("node_modules") || path.startsWith("bench/")) continue;
    // Counts are since the last take (which resets them), and a module's body runs once, at its import: a
    // range with a count is code that ran in the window. (V8 leaves out a nested function whose count is its
    // parent's, so the ranges, not the function entries, are what is read.)
    if (script.functions.some((f) => f.ranges.some((r) => r.count > 0))) files.add(path);
  }
  return [...files].sort();
}

await ranFiles();
await post();
const request = await ranFiles();
await server.core.onIdle();
const after = (await ranFiles()).filter((f) => !request.includes(f));
await server.close();
sink.close();

const print = (label: string, files: string[]) => {
  process.stdout.write(`${label}: ${files.length} files\n`);
  for (const f of files) process.stdout.write(`  ${f}\n`);
};
print("POST /products, request to answer (its commit included)", request);
print(withDelivery ? "then, until idle (the delivery's attempt): files not in the request" : "then, until idle: files not in the request", after);
