import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { Database, Tx } from "../db/database.js";
import { isUnreadableRow } from "../db/unreadable-rows.js";
import { LeaseLost, type Lease } from "../db/worker.js";
import { recordEvent, type EventSink } from "../events/event-sink.js";
import { defaultCheckoutFields } from "../generation/checkout-fields.js";
import type { Generator } from "../generation/generation-input.js";
import { storePageImages } from "../generation/page-images.js";
import type { MediaStore } from "../media/media-store.js";
import { toProductSnapshot } from "../products/product-view.js";
import type { ProductsService } from "../products/products-service.js";
import { defaultTheme, type GlobalTheme } from "../render/theme.js";
import type { JobChanges, PageRepository, StoredJob } from "./page-repository.js";
import { toJobAnswer, toPageView, type PageRecord } from "./page-view.js";

/** Raised inside a step to fail the job with a code. */
export class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a generation run needs from the rest of the core. */
export interface GenerationDeps {
  database: Database;
  repo: PageRepository;
  /** This process's id: a run writes to its job only while this owner holds the job's lease. */
  owner: string;
  media: MediaStore;
  clock: Clock;
  ids: IdSource;
  events: EventSink;
  generator: Generator;
  products: ProductsService;
  sleep: (ms: number) => Promise<void>;
  /** Pause per step, to make progress visible (`slow` simulation, server flags). */
  stepDelayMs: () => number;
  builderUrl: (pageId: string) => string;
  currencyOf: (accountId: string) => Promise<string>;
}

/** What each step says while the job is at it. */
export const STEP_DETAIL = {
  analyzing_product: "Reading the product: title, prices, images and type",
  writing_copy: "Writing the headline, benefits, FAQ and call to action",
  generating_images: "Drawing the hero picture from the theme",
  building_page: "Assembling sections, checkout form and route",
  done: "The page is ready",
} as const;

/**
 * Runs one generation job through its steps, each recorded on the job's row so a poll shows where it is.
 * The page, the job's completion and `page.created` are one transaction. A failure keeps the step it died
 * in and records `error: { code, message }` with `page.generation_failed`, in one transaction too. Every
 * write is made under the run's lease: once it is lost (another process took the job over) the run throws
 * {@link LeaseLost} and writes nothing more. A database that refuses writes throws as well: the job is then
 * taken over once the lease lapses, and settled as interrupted.
 */
export async function runGeneration(deps: GenerationDeps, initial: StoredJob, lease: Lease): Promise<void> {
  const { database, repo, owner } = deps;
  let job = initial;
  const slow = job.request.simulate === "slow";
  const save = async (changes: Omit<JobChanges, "updated_at">) => {
    lease.assertHeld();
    const at = toTimestamp(deps.clock.now());
    const saved = await repo.updateJob(database.db, job.job_id, { ...changes, updated_at: at }, { heldBy: owner });
    if (!saved) throw new LeaseLost(job.job_id);
    job = saved;
  };
  const step = async (name: StoredJob["step"], also: Omit<JobChanges, "updated_at"> = {}) => {
    // When each step began, for the dashboard's per-step durations (the API's job view leaves it out).
    await save({ ...also, step: name, step_detail: STEP_DETAIL[name], step_times: { ...job.step_times, [name]: toTimestamp(deps.clock.now()) } });
    const pause = slow ? 1000 : deps.stepDelayMs();
    if (pause > 0) await deps.sleep(pause);
    if (job.request.simulate === "generation_failed" && name === "generating_images") {
      throw new JobFailure("generation_failed", "Image generation failed (simulated with Lp-Simulate: generation_failed).");
    }
  };
  try {
    await step("analyzing_product");
    const product = await deps.products.read(job.account_id, job.request.product_id);
    if (!product) throw new JobFailure("product_not_found", "The product was deleted before the page could be generated.");
    const snapshot = toProductSnapshot(product);
    const currency = await deps.currencyOf(job.account_id);

    await step("writing_copy");
    const generated = await deps.generator.generate({
      product: snapshot,
      currency,
      language: job.request.language,
      marketing_angle: job.request.marketing_angle ?? undefined,
    });
    const warnings = [...job.warnings, ...generated.warnings];

    // The job's row names the page before its images are drawn: a run cut short here leaves files that
    // whoever settles the job removes.
    const pageId = deps.ids.uuid();
    await step("generating_images", { warnings, page_id: pageId });
    const theme = seedTheme(defaultTheme(currency), job.request.design);
    const language = generated.content.language;
    // Drawn now so the first render finds them; every render redraws them if the theme changed.
    const images = await storePageImages(deps.media, { id: pageId, language, product: snapshot, content: generated.content, global_theme: theme });

    await step("building_page");
    const fields = job.request.checkout_fields ?? product.checkout_fields ?? defaultCheckoutFields(product.product_type, language);
    if (job.request.checkout_fields || !product.checkout_fields) {
      // Checkout fields belong to the product: a later page for it keeps them.
      await deps.products.setCheckoutFields(job.account_id, product.id, fields);
    }
    const at = toTimestamp(deps.clock.now());
    const draft: Omit<PageRecord, "slug"> = {
      id: pageId,
      account_id: job.account_id,
      status: "draft",
      language,
      product: snapshot,
      content: generated.content,
      global_theme: theme,
      // No description: the renderer derives it from the copy, with amounts in the current currency.
      seo_config: { title: product.title },
      checkout_fields: fields,
      hero_image_url: images.hero_image_url,
      deployed_url: null,
      job_id: job.job_id,
      created_at: at,
      updated_at: at,
    };
    lease.assertHeld();
    await database.transaction(async (tx) => {
      const done = await repo.updateJob(
        tx,
        job.job_id,
        { status: "completed", step: "done", step_detail: STEP_DETAIL.done, step_times: { ...job.step_times, done: at }, page_id: pageId, completed_at: at, updated_at: at },
        { heldBy: owner },
      );
      if (!done) throw new LeaseLost(job.job_id);
      const page = await repo.insertPageWithFreeSlug(tx, draft, product.title);
      await recordEvent(deps.events, tx, { type: "page.created", account_id: page.account_id, data: toPageView(page, deps.builderUrl(page.id)) });
    });
  } catch (error) {
    // Another process has the job now: nothing more is written from here.
    if (error instanceof LeaseLost) throw error;
    // A damaged row the run read (its product) fails the job naming it; the read named the row in the log once.
    const failure = error instanceof JobFailure ? error : isUnreadableRow(error) ? new JobFailure(error.code, error.message) : new JobFailure("internal_error", "The generation pipeline failed unexpectedly.");
    if (!(error instanceof JobFailure) && !isUnreadableRow(error)) console.error(`[lp] generation job ${job.job_id} failed:`, error);
    // When the failure cannot be recorded either (the database refuses writes), the first error goes up: the
    // job's lease then lapses, and whoever takes the job over settles it as interrupted.
    await failJob(deps, job, { code: failure.code, message: failure.message }, { heldBy: owner }).catch((writeError: unknown) => {
      throw writeError instanceof LeaseLost ? writeError : error;
    });
  }
}

/**
 * Fails a job with `error` and `page.generation_failed`, in one transaction (`heldBy`: only while that owner
 * holds its lease), then removes the images of the page it had started to draw.
 */
export async function failJob(deps: Pick<GenerationDeps, "database" | "repo" | "clock" | "events" | "media" | "builderUrl">, job: StoredJob, error: { code: string; message: string }, options: { heldBy?: string } = {}): Promise<void> {
  const drawn = job.page_id;
  await deps.database.transaction((tx) => settleFailedIn(tx, deps, job, error, options));
  if (drawn) await deps.media.removePrefix(`pages/${drawn}`);
}

/** The failure of {@link failJob} written in `tx`; the images of the page it had started are the caller's to remove. */
export async function settleFailedIn(
  tx: Tx,
  deps: Pick<GenerationDeps, "repo" | "clock" | "events" | "builderUrl">,
  job: StoredJob,
  error: { code: string; message: string },
  options: { heldBy?: string } = {},
): Promise<void> {
  const failed = await deps.repo.updateJob(tx, job.job_id, { status: "failed", error, page_id: null, updated_at: toTimestamp(deps.clock.now()) }, options);
  if (!failed) throw new LeaseLost(job.job_id);
  await recordEvent(deps.events, tx, { type: "page.generation_failed", account_id: failed.account_id, data: toJobAnswer(failed, deps.builderUrl) });
}

function seedTheme(theme: GlobalTheme, design: Record<string, string | undefined>): GlobalTheme {
  return {
    ...theme,
    primaryColor: design.primary_color ?? theme.primaryColor,
    secondaryColor: design.secondary_color ?? theme.secondaryColor,
    backgroundColor: design.background_color ?? theme.backgroundColor,
    textColor: design.text_color ?? theme.textColor,
    fontFamily: design.font_family ?? theme.fontFamily,
  };
}
