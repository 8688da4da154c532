import type { Client } from "@lp/client";
import { EVENT_TYPES, type EventType } from "@lp/contract/events";
import { createInbox, type WebhookInbox } from "./webhook-inbox.js";
import { createRequestJournal, type RequestJournal } from "./request-journal.js";

/** Options of {@link startLp}. */
export interface StartLpOptions {
  /**
   * Event types the webhook inbox subscribes to; default every type. `false` registers no endpoint
   * (then `webhooks` is null).
   */
  webhooks?: readonly string[] | false;
  /** Webhook retry schedule in milliseconds (as `lp serve --retry-schedule`); default the service's own. */
  retrySchedule?: number[];
  /** Spread every deployment over about this long, so polling code meets `queued` and `building`. Default 0. */
  deployDelayMs?: number;
  /** Pause per page generation step. Default 0. */
  generationStepMs?: number;
  /**
   * `manual`: a clock that moves only through {@link Lp.clock} (`lp.clock.advance("5m")`), so retries,
   * secret overlaps, Idempotency-Key windows, token lifetimes and step delays can be tested without waiting.
   * Default `system`.
   */
  clock?: "system" | "manual";
  /** With `clock: "manual"`: the time it starts at (ISO 8601); default now. */
  clockStart?: string;
}

/** The server's clock; see {@link StartLpOptions.clock}. */
export interface LpClock {
  /** `system` or `manual`. */
  readonly mode: "system" | "manual";
  /** The time the server stamps with now. */
  now(): Date;
  /**
   * Moves a manual clock forward (`"5m"`, `"2h"`, `"7d"`, or milliseconds) and resolves, with the new time,
   * once what fell due has run in time order: deliveries and their retries, circuit probes, job steps.
   */
  advance(by: string | number): Promise<Date>;
  /** Moves a manual clock forward to `to` (never back: that rejects), likewise. */
  set(to: string | Date): Promise<Date>;
}

/** The credentials of the dev account and application, as `lp serve` prints them. */
export interface LpCredentials {
  token: string;
  accountId: string;
  appId: string;
  appSecret: string;
  /** Key of the local admin API (`/_admin`). */
  adminKey: string;
}

/** A running in-process lp server; see {@link startLp}. `W` is null when started with `webhooks: false`. */
export interface Lp<W extends WebhookInbox | null = WebhookInbox> {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no `/v1`). */
  readonly url: string;
  readonly credentials: LpCredentials;
  /** `LP_API_URL`, `LP_TOKEN`, `LP_ACCOUNT`, `LP_APP_ID`, `LP_APP_SECRET`, `LP_ADMIN_KEY`: for the `lp` CLI or a child process. */
  readonly env: Readonly<Record<string, string>>;
  /** A `@lp/client` client holding every credential. */
  readonly client: Client;
  /** The API requests the server answered (its request journal): `find(filter)`, `waitFor(filter, { timeoutMs, count })`. */
  readonly requests: RequestJournal;
  /** The server's clock, moved with `advance` and `set` when started with `clock: "manual"`. */
  readonly clock: LpClock;
  /** Verified deliveries to a receiver registered as a webhook endpoint; null with `webhooks: false`. */
  readonly webhooks: W;
  /** Stops the receiver and the server and forgets every record. Idempotent. */
  close(): Promise<void>;
  /** `await using lp = await startLp()` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The server stack, imported at the first start (importing `@lp/cli/testing` loads none of it) and kept for the next ones. */
let stack: Promise<[typeof import("@lp/server"), typeof import("@lp/client"), typeof import("@lp/webhooks")]> | undefined;
const loadStack = () =>
  (stack ??= Promise.all([import("@lp/server"), import("@lp/client"), import("@lp/webhooks")]).catch((error: unknown) => {
    // A failed import is tried again at the next start rather than remembered.
    stack = undefined;
    throw error;
  }));

/**
 * Starts the whole lp API in this process, on a free loopback port, with memory storage of its own
 * (two servers in one process share nothing), and a webhook receiver registered on the dev application.
 *
 * @example
 * const lp = await startLp();
 * const product = await lp.client.products.create({ title: "Apron", price: 42, product_type: "physical" });
 * const event = await lp.webhooks.next("product.created");
 * await lp.close();
 */
export async function startLp(options: StartLpOptions & { webhooks: false }): Promise<Lp<null>>;
export async function startLp(options?: StartLpOptions): Promise<Lp>;
export async function startLp(options: StartLpOptions = {}): Promise<Lp<WebhookInbox | null>> {
  const [{ startServer, toJournalEntry }, { createClient }, { createReceiver }] = await loadStack();
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    storage: "memory",
    log: null,
    retrySchedule: options.retrySchedule,
    deployDelayMs: options.deployDelayMs,
    generationStepMs: options.generationStepMs,
    clock: options.clock,
    clockStart: options.clockStart,
    // The AI generator is the server's own choice from LP_AI_*: a test gets the offline template.
    env: {},
  });
  const credentials: LpCredentials = {
    token: server.credentials.token,
    accountId: server.credentials.account_id,
    appId: server.credentials.application_id,
    appSecret: server.credentials.client_secret,
    adminKey: server.adminKey!,
  };
  const client = createClient({ baseUrl: server.url, ...credentials });
  const requests = createRequestJournal(server.journal!, toJournalEntry);
  let inbox: (WebhookInbox & { close(): void }) | null = null;
  let receiver: Awaited<ReturnType<typeof createReceiver>> | null = null;
  try {
    if (options.webhooks !== false) {
      // Deliveries are signed at the server's time: a manual clock moved hours ahead must not read as a replay.
      receiver = await createReceiver({ host: "127.0.0.1", port: 0, now: () => server.core.time.now() });
      const events = options.webhooks?.length ? [...options.webhooks] : [...EVENT_TYPES];
      const endpoint = await client.webhooks.create({ url: receiver.url, events: events as EventType[] });
      receiver.setSecret(endpoint.secret);
      inbox = createInbox(receiver, endpoint.id, endpoint.secret);
    }
  } catch (error) {
    await receiver?.close();
    await server.close();
    throw error;
  }
  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= (async () => {
      inbox?.close();
      requests.close();
      await server.close();
      await receiver?.close();
    })());
  return {
    url: server.url,
    credentials,
    env: {
      LP_API_URL: server.url,
      LP_TOKEN: credentials.token,
      LP_ACCOUNT: credentials.accountId,
      LP_APP_ID: credentials.appId,
      LP_APP_SECRET: credentials.appSecret,
      LP_ADMIN_KEY: credentials.adminKey,
    },
    client,
    requests,
    clock: {
      mode: server.core.time.mode,
      now: () => server.core.time.now(),
      advance: async (by) => new Date((await client.admin.advanceClock(typeof by === "number" ? `${Math.round(by)}ms` : by)).now),
      set: async (to) => new Date((await client.admin.setClock(to)).now),
    },
    webhooks: inbox,
    close,
    [Symbol.asyncDispose]: close,
  };
}
