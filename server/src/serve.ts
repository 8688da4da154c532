import { randomBytes } from "node:crypto";
import { createServer as createNetServer } from "node:net";
import { resolve } from "node:path";
import {
  createCore,
  createOpenAIGenerator,
  createStores,
  ensureDevCredentials,
  type Core,
  type DevCredentials,
  type Generator,
  type StorageKind,
  type Stores,
} from "@lp/core";
import { toNodeHandler } from "h3/node";
import { listen } from "listhen";
import { createApp } from "./app.js";
import { lockDataDir } from "./data-dir-lock.js";
import { createDashboardHub } from "./dashboard/hub.js";

/** Options of {@link startServer} (the flags of `lp serve`). */
export interface ServeOptions {
  host?: string;
  port?: number;
  storage?: StorageKind;
  dataDir?: string;
  publicUrl?: string;
  admin?: boolean;
  adminKey?: string;
  /** Access-log sink; null for none. Default: stderr. */
  log?: ((line: string) => void) | null;
  /** Webhook retry schedule in milliseconds (kept for the delivery engine). */
  retrySchedule?: number[];
  /** Spread every deployment over about this long (three steps), so polling loops can be exercised. */
  deployDelayMs?: number;
  /** Pause per generation step, likewise. */
  generationStepMs?: number;
  /** Refuse webhook receivers on private, loopback and link-local addresses. */
  publicOnly?: boolean;
  /** Where `LP_AI_BASE_URL`, `LP_AI_API_KEY` and `LP_AI_MODEL` are read; default process.env. */
  env?: Record<string, string | undefined>;
}

/** The page generator the environment asks for: an OpenAI-compatible endpoint, or the offline template. */
function generatorFromEnv(env: Record<string, string | undefined>): Generator | undefined {
  if (!env.LP_AI_BASE_URL) return undefined;
  return createOpenAIGenerator({
    baseUrl: env.LP_AI_BASE_URL.replace(/\/+$/, ""),
    apiKey: env.LP_AI_API_KEY ?? "",
    model: env.LP_AI_MODEL ?? "gpt-4o-mini",
    fetch: globalThis.fetch,
  });
}

/** A started server. */
export interface RunningServer {
  url: string;
  adminKey: string | null;
  credentials: DevCredentials;
  core: Core;
  /** A fresh one-time login URL of the dashboard at `/_dashboard`; null when the admin API is off. */
  dashboardLoginUrl: (() => string) | null;
  /** Stops accepting, finishes in-flight requests and background work, and closes the stores. */
  close(): Promise<void>;
}

/** Starts the whole API on a port: what `lp serve` runs. */
export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const kind = options.storage ?? "fs";
  const dataDir = kind === "fs" ? resolve(options.dataDir ?? ".lp") : undefined;
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  try {
    return await boot(options, host, createStores(kind, dataDir), unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

async function boot(options: ServeOptions, host: string, stores: Stores, unlock: () => void): Promise<RunningServer> {
  let publicUrl = options.publicUrl?.replace(/\/+$/, "") ?? "";
  // The dashboard goes with the admin API: same switch (--no-admin), same trust.
  const dashboard = options.admin === false ? undefined : createDashboardHub();
  const core = await createCore({
    stores,
    events: dashboard?.sink,
    publicUrl: () => publicUrl,
    generator: generatorFromEnv(options.env ?? process.env),
    retrySchedule: options.retrySchedule,
    publicOnly: options.publicOnly,
    delays: {
      generationStepMs: options.generationStepMs ?? 0,
      deploymentStepMs: Math.round((options.deployDelayMs ?? 0) / 3),
    },
  });
  const credentials = await ensureDevCredentials(stores.data, core.clock, core.ids);
  const adminKey = options.admin === false ? null : (options.adminKey ?? `lpadm_${randomBytes(18).toString("base64url")}`);
  const { app } = createApp({
    core,
    settings: { simulate: true, adminKey, publicUrl: () => publicUrl },
    log: options.log,
    dashboard,
    afterReset: async () => {
      await ensureDevCredentials(stores.data, core.clock, core.ids);
    },
  });
  const wanted = options.port ?? 4010;
  // listhen would quietly move to another port; a script that expects this one must hear about it instead.
  if (wanted !== 0 && !(await isPortFree(wanted, host))) {
    throw new Error(`Port ${wanted} on ${host} is already in use; stop what uses it or pass --port 0 for a free port.`);
  }
  const listener = await listen(toNodeHandler(app), {
    hostname: host,
    port: wanted,
    autoClose: false,
    qr: false,
    showURL: false,
    open: false,
    clipboard: false,
    public: false,
  });
  const address = listener.server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 4010);
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (!publicUrl) publicUrl = url;
  let closing: Promise<void> | null = null;
  return {
    url,
    adminKey,
    credentials,
    core,
    dashboardLoginUrl: dashboard ? () => `${url}/_dashboard/login?token=${dashboard.access.issueLogin()}` : null,
    close() {
      closing ??= (async () => {
        dashboard?.close();
        await listener.close();
        await core.close();
        await stores.dispose();
        unlock();
      })();
      return closing;
    },
  };
}

function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}
