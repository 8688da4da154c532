import type { Storage } from "unstorage";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { EventSink } from "../events/event-sink.js";
import { defaultCheckoutFields } from "../generation/checkout-fields.js";
import type { Generator } from "../generation/generation-input.js";
import { storePageImages } from "../generation/page-images.js";
import type { MediaStore } from "../media/media-store.js";
import { toProductSnapshot } from "../products/product-view.js";
import { StorageUnavailableError } from "../errors.js";
import { HoldLost } from "../ports/queue.js";
import type { ProductsService } from "../products/products-service.js";
import { defaultTheme, type GlobalTheme } from "../render/theme.js";
import type { JobRecord, PageRecord } from "./page-view.js";
import { toJobView } from "./page-view.js";
import { StorageFaultError } from "../storage/storage-faults.js";

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
  storage: Storage;
  media: MediaStore;
  clock: Clock;
  ids: IdSource;
  events: EventSink;
  generator: Generator;
  products: ProductsService;
  sleep: (ms: number) => Promise<void>;
  /** Pause per step, to make progress visible (`slow` simulation, server flags). */
  stepDelayMs: () => number;
  saveJob: (job: JobRecord) => Promise<void>;
  /** Records which page the job is about to write, before its images (crash recovery finishes or cleans up). */
  reservePage: (job: JobRecord, pageId: string) => Promise<void>;
  /** Stores the finished page (slug allocation, index) and returns it. */
  createPage: (job: JobRecord, draft: Omit<PageRecord, "slug">, title: string) => Promise<PageRecord>;
  builderUrl: (pageId: string) => string;
  currencyOf: (accountId: string) => Promise<string>;
}

const STEP_DETAIL = {
  analyzing_product: "Reading the product: title, prices, images and type",
  writing_copy: "Writing the headline, benefits, FAQ and call to action",
  generating_images: "Drawing the hero picture from the theme",
  building_page: "Assembling sections, checkout form and route",
  done: "The page is ready",
} as const;

/**
 * Runs one generation job through its steps, persisting each transition so a poll always shows where it
 * is. A failure keeps the step it died in and records `error: { code, message }`. When `signal` is aborted
 * (a shared queue gave the job to another process) the run stops before its next step, writing nothing more.
 */
export async function runGeneration(deps: GenerationDeps, initial: JobRecord, signal?: AbortSignal): Promise<void> {
  let job = initial;
  const slow = job.request.simulate === "slow";
  const step = async (name: JobRecord["step"]) => {
    if (signal?.aborted) throw new HoldLost();
    const at = toTimestamp(deps.clock.now());
    // When each step began, for the dashboard's per-step durations (the API's job view leaves it out).
    job = { ...job, step: name, step_detail: STEP_DETAIL[name], updated_at: at, step_times: { ...job.step_times, [name]: at } };
    await deps.saveJob(job);
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
    job = { ...job, warnings: [...job.warnings, ...generated.warnings] };

    await step("generating_images");
    const pageId = deps.ids.uuid();
    await deps.reservePage(job, pageId);
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
    const page = await deps.createPage(
      job,
      {
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
      },
      product.title,
    );
    job = {
      ...job,
      status: "completed",
      step: "done",
      step_detail: STEP_DETAIL.done,
      step_times: { ...job.step_times, done: at },
      page_id: page.id,
      builder_url: deps.builderUrl(page.id),
      updated_at: at,
      completed_at: at,
    };
    await deps.saveJob(job);
  } catch (error) {
    // Another process settles the job now: nothing more is written from here.
    if (error instanceof HoldLost) return;
    // The shared store is away: nothing can be recorded now; the queue runs the job again, resumed, once it is back.
    // Likewise a storage that refuses writes (full, read-only): nothing can be recorded until it takes them again.
    if (error instanceof StorageUnavailableError || error instanceof StorageFaultError) throw error;
    const failure = error instanceof JobFailure ? error : new JobFailure("internal_error", "The generation pipeline failed unexpectedly.");
    if (!(error instanceof JobFailure)) console.error(`[lp] generation job ${job.job_id} failed:`, error);
    job = { ...job, status: "failed", error: { code: failure.code, message: failure.message }, updated_at: toTimestamp(deps.clock.now()) };
    await deps.saveJob(job);
    await deps.events.emit({ type: "page.generation_failed", account_id: job.account_id, data: toJobView(job) });
  }
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
