import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { assertBuilt, createSandbox, spawnLp, type LpProcess } from "../../cli/src/e2e/processes.js";
import { startPostgresServer, type PostgresServer } from "../../core/src/testing/postgres-server.js";
import { createCrashApi, type CrashApi, type CallInit, type Reply } from "../crash/crash-api.js";

/** The admin key every process of a test cluster shares (32+ characters, as a real deployment would use). */
export const CLUSTER_ADMIN_KEY = "cluster-admin-key-0123456789abcdef";

/** One `lp serve --storage postgres` process of a cluster. */
export interface ClusterNode {
  index: number;
  proc: LpProcess;
  /** Its `LP_*` lines: LP_API_URL, LP_ACCOUNT, LP_TOKEN, LP_APP_ID, LP_APP_SECRET, LP_ADMIN_KEY. */
  env: Record<string, string>;
  /** Its own address. */
  url: string;
  /** Its `--data-dir` (where credentials.json is). */
  dataDir: string;
  /** A client of this process alone, with the first process's dev credentials (they are shared). */
  api: CrashApi;
  /** False once {@link Cluster.kill} took it out. */
  alive: boolean;
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  processes: number;
  /** More `lp serve` flags for every process (e.g. `--retry-schedule`, `--deploy-delay`). */
  flags?: string[];
  /** The environment of every process (default: LP_ADMIN_KEY={@link CLUSTER_ADMIN_KEY}). */
  env?: Record<string, string>;
  /** A PostgreSQL server to use instead of starting one (it is not disposed by {@link Cluster.stop}). */
  postgres?: PostgresServer;
}

/** A PostgreSQL server, a database on it and N real `lp serve` processes on that database, with a client that spreads requests over them. */
export interface Cluster {
  postgres: PostgresServer;
  /** The database every process serves. */
  databaseUrl: string;
  nodes: ClusterNode[];
  /** The dev account, its token and the dev application's Basic credentials (shared by every process). */
  account: string;
  token: string;
  basic: string;
  /** Round robin over the live processes: each call goes to the next one. */
  api: CrashApi;
  /** Sends one request to process `index`. */
  on(index: number, method: string, path: string, init?: CallInit): Promise<Reply>;
  /** Takes process `index` out of the rotation, SIGKILLs it and waits for it to be gone. */
  kill(index: number): Promise<void>;
  /** `text` with every process's own address replaced by `<origin>` (public URLs name the process that answered). */
  unorigin(text: string): string;
  /** Starts one more process on the same database with the same flags, and puts it in the rotation. */
  add(): Promise<ClusterNode>;
  /** SIGKILLs every process and removes the PostgreSQL server (unless it was given) and the sandboxes. */
  stop(): Promise<void>;
}

/** Spawns `lp serve --storage postgres --database-url URL --port 0 ...args` in a fresh sandbox, without waiting. */
export function spawnServe(databaseUrl: string, args: string[], env: Record<string, string> = { LP_ADMIN_KEY: CLUSTER_ADMIN_KEY }) {
  const sandbox = createSandbox();
  const dataDir = join(sandbox.dir, "lp");
  mkdirSync(dataDir, { recursive: true });
  // The URL goes in the environment, as docs/scale-out.md advises (a command line shows in `ps`).
  const all = ["serve", "--storage", "postgres", "--port", "0", "--data-dir", dataDir, ...args];
  const proc = spawnLp(all, { env: { ...sandbox.env, LP_DATABASE_URL: databaseUrl, ...env }, cwd: sandbox.dir });
  return { proc, sandbox };
}

/** Starts `lp serve --storage postgres` on `databaseUrl` in its own sandbox and waits until it is ready. */
async function startNode(index: number, databaseUrl: string, flags: string[], nodeEnv?: Record<string, string>) {
  const { proc, sandbox } = spawnServe(databaseUrl, ["--print-env", "--quiet", ...flags], nodeEnv);
  let ready: RegExpExecArray;
  try {
    ready = await proc.waitFor("stderr", /^Ready at (\S+)/m);
    await proc.waitFor("stdout", /^LP_APP_SECRET=.*\n/m);
  } catch (error) {
    sandbox.remove();
    throw error;
  }
  const env = Object.fromEntries(proc.stdout.trim().split("\n").map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
  // The process's own address (LP_API_URL is the public one when --public-url is given).
  return { index, proc, env, url: ready[1], dataDir: join(sandbox.dir, "lp"), remove: sandbox.remove };
}

/**
 * Starts a PostgreSQL server (fsync on: a kill must not lose what was acknowledged), a database on it, and
 * `processes` real `lp serve --storage postgres` processes on that database, one after another (the first
 * one migrates the schema and creates the shared dev credentials, the others must find them).
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  assertBuilt();
  const postgres = options.postgres ?? (await startPostgresServer());
  const databaseUrl = await postgres.createDatabase();
  const started: Awaited<ReturnType<typeof startNode>>[] = [];
  const stop = async () => {
    await Promise.all(started.map(async (node) => {
      if (node.proc.child.exitCode === null && node.proc.child.signalCode === null) node.proc.child.kill("SIGKILL");
      await node.proc.exited;
      node.remove();
    }));
    if (!options.postgres) await postgres.dispose();
  };
  try {
    for (let i = 0; i < options.processes; i++) started.push(await startNode(i, databaseUrl, options.flags ?? [], options.env));
  } catch (error) {
    await stop();
    throw error;
  }
  const first = started[0].env;
  const nodes: ClusterNode[] = started.map((node) => ({ ...node, api: createCrashApi(node.url, first.LP_ACCOUNT, first.LP_TOKEN), alive: true }));
  let turn = 0;
  const next = () => {
    const live = nodes.filter((n) => n.alive);
    if (live.length === 0) throw new Error("every process of the cluster is dead");
    return live[turn++ % live.length];
  };
  return {
    postgres,
    databaseUrl,
    nodes,
    account: first.LP_ACCOUNT,
    token: first.LP_TOKEN,
    basic: `Basic ${Buffer.from(`${first.LP_APP_ID}:${first.LP_APP_SECRET}`).toString("base64")}`,
    api: {
      get base() {
        return next().url;
      },
      call: (method, path, init) => next().api.call(method, path, init),
    },
    on: (index, method, path, init) => nodes[index].api.call(method, path, init),
    unorigin: (text) => nodes.reduce((out, node) => out.replaceAll(node.url, "<origin>"), text),
    async kill(index) {
      const node = nodes[index];
      node.alive = false;
      node.proc.child.kill("SIGKILL");
      await node.proc.exited;
    },
    async add() {
      const node = await startNode(nodes.length, databaseUrl, options.flags ?? [], options.env);
      started.push(node);
      const added: ClusterNode = { ...node, api: createCrashApi(node.url, first.LP_ACCOUNT, first.LP_TOKEN), alive: true };
      nodes.push(added);
      return added;
    },
    stop,
  };
}

/** Fires `n` requests at once and resolves with every answer, in order. */
export const all = <T>(n: number, fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

/** How many of `statuses` equal `status`. */
export const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;
