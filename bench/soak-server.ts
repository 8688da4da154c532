/**
 * The server of `npm run soak`, bundled and run on plain node like the published `lp serve`: sqlite storage
 * in SOAK_DIR, a short webhook retry schedule, no access log. Prints one JSON line with what the load
 * needs ({ url, account, token, appId, appSecret }), answers SIGUSR2 with its heap after a full garbage
 * collection and the size V8 gives its young generation then ({ heapUsedMb, newSpaceMb }), and stops cleanly on
 * SIGTERM.
 */
import { getHeapSpaceStatistics } from "node:v8";
import { startServer } from "../server/src/serve.js";

const server = await startServer({
  storage: "sqlite",
  dataDir: process.env.SOAK_DIR,
  port: 0,
  log: null,
  retrySchedule: [0, 500, 1000, 2000, 5000],
});
const { account_id: account, token, application_id: appId, client_secret: appSecret } = server.credentials;
process.stdout.write(`${JSON.stringify({ url: server.url, account, token, appId, appSecret })}\n`);

// SIGUSR2: a full collection (node runs with --expose-gc), then the heap still in use and the young generation's
// size (its two semi-spaces, which V8 doubles as objects keep surviving its scavenges: resident memory, not a
// leak), as one JSON line.
process.on("SIGUSR2", () => {
  (globalThis as { gc?: () => void }).gc?.();
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? Number.NaN;
  process.stdout.write(`${JSON.stringify({ heapUsedMb: process.memoryUsage().heapUsed / 1024 / 1024, newSpaceMb: newSpace / 1024 / 1024 })}\n`);
});

let stopping = false;
process.on("SIGTERM", async () => {
  if (stopping) return;
  stopping = true;
  await server.close();
  process.exit(0);
});
