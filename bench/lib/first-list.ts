/**
 * The first list of a process that has just started on data it did not write (`bench/scenarios/restart-list.ts`):
 * `/healthz` polled on a connection of its own while `GET /products?per_page=20` is sent on another, with the
 * process's event loop read through the loop hook.
 */
import { Agent, request } from "node:http";
import type { Child } from "./child.js";
import type { LpInfo } from "./lp-info.js";
import type { LoopDelay } from "./loop-delay.js";

const POLL_EVERY_MS = 5;

/** One GET on `agent`'s connection: status, body and ms from send to the last byte. */
export function timedGet(url: string, headers: Record<string, string>, agent: Agent): Promise<{ status: number; body: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - t0 }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** `/healthz` one request after another, POLL_EVERY_MS apart, on a connection of its own until stopped. */
function pollHealth(base: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failed = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      const answer = await timedGet(`${base}/healthz`, {}, agent).catch(() => null);
      // A poll that failed (the server's header timeout closes a connection it could not read for 10 s)
      // still waited: its time counts in the maximum.
      times.push(answer?.ms ?? performance.now() - t0);
      if (answer?.status !== 200) failed++;
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
  })();
  return {
    answered: () => times.length - failed,
    async stop() {
      running = false;
      await done;
      agent.destroy();
      return { max: Math.max(0, ...times), polls: times.length, failed };
    },
  };
}

/** What {@link firstListOf} measured. */
export interface Restarted {
  firstMs: number;
  secondMs: number;
  /** A list sorted by title (read from the database's index of titles); null when not asked for. */
  wholeMs: number | null;
  health: { max: number; polls: number; failed: number };
  /** From the moment the process reported ready to the end of the polling after its lists. */
  loop: LoopDelay | null;
  /** From the process's start (module loading included) to ready: nothing can wait on it yet. */
  startup: LoopDelay | null;
  /** Whether the first page was a full one (20 products and more to come): an empty page is no answer. */
  full: boolean;
}

/**
 * The first `GET /products?per_page=20` of `server` (started with BENCH_FIRST_LIST=0), `/healthz` polled
 * beside it, then a second list, and with `whole` a list sorted by title (another index of the database). The
 * event-loop figures are the process's own: from ready to the end of the polling (judged), and from its
 * start to ready (module loading and start-up, reported beside).
 */
export async function firstListOf(server: Child<LpInfo>, whole: boolean): Promise<Restarted> {
  // The first window (open from the process's start) closes here: start-up, reported apart.
  const startup = await server.loop.sinceStart();
  const result = await server.loop.around(() => listWhilePolling(server, startup, whole));
  return { ...result, loop: server.loop.worst() };
}

async function listWhilePolling(server: Child<LpInfo>, startup: LoopDelay | null, whole: boolean): Promise<Restarted> {
  const { url, account, token } = server.info;
  const health = pollHealth(url);
  // The poller's connection is open and answered before the list is sent.
  const deadline = performance.now() + 30_000;
  while (health.answered() < 3) {
    if (server.child.exitCode !== null || server.child.signalCode !== null || performance.now() > deadline) {
      const seen = await health.stop();
      throw new Error(`the restarted server never answered /healthz with 200 (${seen.failed} other answers; exit ${server.child.exitCode ?? server.child.signalCode})`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const list = (query = "") => timedGet(`${url}/v1/accounts/${account}/products?per_page=20${query}`, { authorization: `Bearer ${token}` }, agent);
  try {
    const first = await list();
    const second = await list();
    const sorted = whole ? await list("&sort=title") : null;
    if (sorted && sorted.status !== 200) throw new Error(`the list by title answered ${sorted.status}: ${sorted.body.slice(0, 200)}`);
    // A little more polling after the answer: work the lists left behind would still show.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const page = first.status === 200 ? (JSON.parse(first.body) as { data: unknown[]; pagination: { has_more: boolean } }) : null;
    const full = page?.data.length === 20 && page.pagination.has_more;
    return { firstMs: first.ms, secondMs: second.ms, wholeMs: sorted?.ms ?? null, health: await health.stop(), loop: null, startup, full };
  } finally {
    agent.destroy();
    await health.stop();
  }
}
