import { toSearchText } from "../products/product-repository.js";
import { toJson } from "./column-types.js";
import type { Format2Record } from "./format-2-records.js";
import type { RowBuild } from "./format-2-row-build.js";
import type { AnyRow } from "./table-catalog.js";

/** The pages written, and those whose deletion was under way (left out with all they hold). */
export interface PagesWritten {
  pages: Map<string, Format2Record<"page">>;
  deleting: Set<string>;
}

/** Products with their images (a product one of whose images is already written is left out whole). Answers the products written. */
export function addProductRows(build: RowBuild): Set<string> {
  const { byKind, add, once, needAccount } = build;
  const products = new Set<string>();
  for (const { key, record: p } of byKind.product) {
    if (!needAccount(key, p.account_id) || !once("products", p.id, key) || !p.images.every((image) => once("product_images", image.id, `${key} (image ${image.id})`))) continue;
    products.add(p.id);
    add("products", {
      id: p.id,
      account_id: p.account_id,
      title: p.title,
      description: p.description,
      price: p.price,
      original_price: p.original_price,
      delivery_price: p.delivery_price,
      product_type: p.product_type,
      checkout_fields: p.checkout_fields == null ? null : toJson(p.checkout_fields),
      search_text: toSearchText(p.title, p.description),
      media_bytes: p.images.reduce((sum, image) => sum + (image.bytes ?? 0), 0),
      created_at: p.created_at,
      updated_at: p.updated_at,
      deleted_at: p.deleted_at,
    });
    for (const image of p.images) {
      add("product_images", {
        id: image.id,
        product_id: p.id,
        url: image.url,
        media_type: image.media_type,
        display_order: image.display_order,
        media_path: image.media_path,
        bytes: image.bytes ?? null,
        created_at: image.created_at,
      });
    }
  }
  return products;
}

/**
 * Generation jobs and pages. A job still processing is due at its creation, for the workers to take over. A
 * page needs its product, a slug its account has not given another page, and a job no other page was made
 * by; a page whose job record is gone gets a completed job made from it (a page names its job in format 3).
 */
export function addPageRows(build: RowBuild, products: ReadonlySet<string>): PagesWritten {
  const { byKind, add, leave, once, needAccount } = build;
  const jobs = new Map<string, AnyRow>();
  for (const { key, record: j } of byKind.job) {
    if (!needAccount(key, j.account_id) || !once("page_jobs", j.job_id, key)) continue;
    const row: AnyRow = {
      job_id: j.job_id,
      account_id: j.account_id,
      status: j.status,
      step: j.step,
      step_detail: j.step_detail,
      page_id: j.page_id,
      request: toJson(j.request),
      warnings: toJson(j.warnings),
      step_times: toJson(j.step_times ?? {}),
      error_code: j.error?.code ?? null,
      error_message: j.error?.message ?? null,
      created_at: j.created_at,
      updated_at: j.updated_at,
      completed_at: j.completed_at,
      due_at: j.status === "processing" ? j.created_at : null,
      lease_owner: null,
      lease_expires_at: null,
    };
    jobs.set(j.job_id, row);
    add("page_jobs", row);
  }

  const deleting = new Set(byKind.deletion.map(({ parts }) => parts[1]!));
  const pages = new Map<string, Format2Record<"page">>();
  const slugs = new Set<string>();
  const pageOfJob = new Set<string>();
  for (const { key, record: p } of byKind.page) {
    if (deleting.has(p.id)) {
      leave(key, "its deletion was under way: it is finished by leaving the page out");
      continue;
    }
    if (!needAccount(key, p.account_id) || !once("pages", p.id, key)) continue;
    if (!products.has(p.product.id)) {
      leave(key, `names product ${p.product.id}, which is not there`);
      continue;
    }
    const slug = `${p.account_id}\n${p.slug}`;
    if (slugs.has(slug) || pageOfJob.has(p.job_id)) {
      leave(key, slugs.has(slug) ? `another page of the account has the slug ${p.slug}` : `another page was made by job ${p.job_id}`);
      continue;
    }
    if (!jobs.has(p.job_id)) {
      const job: AnyRow = {
        job_id: p.job_id,
        account_id: p.account_id,
        status: "completed",
        step: "done",
        step_detail: "The page is ready",
        page_id: p.id,
        request: toJson({ product_id: p.product.id, language: p.language }),
        warnings: "[]",
        step_times: "{}",
        error_code: null,
        error_message: null,
        created_at: p.created_at,
        updated_at: p.created_at,
        completed_at: p.created_at,
        due_at: null,
        lease_owner: null,
        lease_expires_at: null,
      };
      jobs.set(p.job_id, job);
      add("page_jobs", job);
    }
    slugs.add(slug);
    pageOfJob.add(p.job_id);
    pages.set(p.id, p);
    add("pages", {
      id: p.id,
      account_id: p.account_id,
      product_id: p.product.id,
      slug: p.slug,
      status: p.status,
      language: p.language,
      hero_image_url: p.hero_image_url,
      deployed_url: p.deployed_url,
      job_id: p.job_id,
      search_text: `${p.slug}\n${p.product.title}`.toLowerCase(),
      product: toJson(p.product),
      content: toJson(p.content),
      global_theme: toJson(p.global_theme),
      seo_config: toJson(p.seo_config),
      checkout_fields: toJson(p.checkout_fields),
      created_at: p.created_at,
      updated_at: p.updated_at,
    });
  }
  return { pages, deleting };
}
