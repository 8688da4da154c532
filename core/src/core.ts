import { createAccountsService } from "./accounts/accounts-service.js";
import { clearStores, exportStores, importStores } from "./admin/data-transfer.js";
import { cryptoIds, systemClock, toTimestamp, type Clock, type IdSource } from "./deps.js";
import { nullEventSink, type EventSink } from "./events/event-sink.js";
import { createIdempotency } from "./idempotency/idempotency.js";
import { createCursorCodec } from "./lists/cursor.js";
import { IndexRegistry } from "./lists/index-registry.js";
import { createMediaStore } from "./media/media-store.js";
import { createLocalLock, type Lock } from "./ports/lock.js";
import { createLocalQueue, type JobQueue } from "./ports/queue.js";
import { createProductsService } from "./products/products-service.js";
import { createTemplateGenerator } from "./generation/template-generator.js";
import type { Generator } from "./generation/generation-input.js";
import { createPagesService } from "./pages/pages-service.js";
import { createDeploymentsService, type DeploymentsService } from "./deployments/deployments-service.js";
import { createSitesService } from "./deployments/sites-service.js";
import type { Stores } from "./storage/create-storage.js";

/** What the core is built from. Everything with side effects is injected. */
export interface CoreDeps {
  stores: Stores;
  /** Base URL the public addresses (media, builder, sites) are built on. A function: the port may be known late. */
  publicUrl: () => string;
  clock?: Clock;
  ids?: IdSource;
  lock?: Lock;
  queue?: JobQueue;
  events?: EventSink;
  /** Writes page copy; the offline template generator by default. */
  generator?: Generator;
  /** Waits; injected so tests never sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Pauses per step of background work, to make progress visible. Mutable at run time. */
  delays?: Delays;
}

/** Pauses per step of background work (0: none). */
export interface Delays {
  generationStepMs: number;
  deploymentStepMs: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

/** Builds the domain: every service over the given stores. */
export async function createCore(deps: CoreDeps) {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? cryptoIds;
  const lock = deps.lock ?? createLocalLock();
  const queue = deps.queue ?? createLocalQueue();
  const events = deps.events ?? nullEventSink;
  const storage = deps.stores.data;
  const cursors = createCursorCodec(await loadSecret(deps.stores, "meta:cursor_key", ids));
  const indexes = new IndexRegistry(storage);
  const media = createMediaStore(deps.stores.media, deps.publicUrl);
  const base = { storage, clock, ids, lock, indexes, cursors, events, publicUrl: deps.publicUrl };

  const accounts = createAccountsService({ storage, clock, ids });
  const products = createProductsService({ ...base, media });
  const idempotency = createIdempotency({ storage, clock, lock });
  const delays: Delays = deps.delays ?? { generationStepMs: 0, deploymentStepMs: 0 };
  const sleep = deps.sleep ?? realSleep;
  const pages = createPagesService({
    ...base,
    media,
    queue,
    generator: deps.generator ?? createTemplateGenerator(),
    products,
    accounts,
    sleep,
    stepDelayMs: () => delays.generationStepMs,
    onPageDeleted: (page) => deployments.onPageDeleted(page),
  });
  const deployments: DeploymentsService = createDeploymentsService({
    ...base,
    queue,
    pages,
    sleep,
    stepDelayMs: () => delays.deploymentStepMs,
  });
  const sites = createSitesService({ storage, clock, ids, events });
  await pages.recover();
  await deployments.recover();

  return {
    clock,
    ids,
    lock,
    queue,
    stores: deps.stores,
    media,
    accounts,
    products,
    pages,
    deployments,
    sites,
    idempotency,
    delays,
    admin: {
      async reset() {
        await queue.onIdle();
        await clearStores(deps.stores);
        indexes.clear();
      },
      export: () => exportStores(deps.stores, toTimestamp(clock.now())),
      async import(doc: unknown) {
        await queue.onIdle();
        const counts = await importStores(deps.stores, doc);
        indexes.clear();
        return counts;
      },
    },
    /** Waits for background work to finish (tests, graceful shutdown). */
    onIdle: () => queue.onIdle(),
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;

async function loadSecret(stores: Stores, key: string, ids: IdSource): Promise<Buffer> {
  const stored = await stores.data.getItem<{ value: string }>(key);
  if (stored?.value) return Buffer.from(stored.value, "base64");
  const value = ids.bytes(32);
  await stores.data.setItem(key, { value: value.toString("base64") });
  return value;
}
