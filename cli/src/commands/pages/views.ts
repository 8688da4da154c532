import type { Deployment, Job, Page, PageSummary } from "@lp/client";
import type { Column } from "../../runtime/table.js";

/** Columns of `lp pages list`. */
export const pageColumns: Column<PageSummary>[] = [
  ["id", (p) => p.id],
  ["slug", (p) => p.slug],
  ["status", (p) => p.status],
  ["product", (p) => p.product?.title],
  ["deployed_url", (p) => p.deployed_url],
  ["created", (p) => p.created_at],
];

/** Fields of one page. */
export const pageFields: Column<Page>[] = [
  ["id", (p) => p.id],
  ["slug", (p) => p.slug],
  ["status", (p) => p.status],
  ["product", (p) => `${p.product?.title} (${p.product?.id})`],
  ["price", (p) => `${p.product?.price} ${p.product?.currency ?? ""}`.trim()],
  ["deployed_url", (p) => p.deployed_url],
  ["builder_url", (p) => p.builder_url],
  ["theme", (p) => p.global_theme],
  ["seo", (p) => p.seo_config],
  ["created", (p) => p.created_at],
  ["updated", (p) => p.updated_at],
];

/** Fields of a generation job. */
export const jobFields: Column<Job>[] = [
  ["job_id", (j) => j.job_id],
  ["status", (j) => j.status],
  ["step", (j) => j.step],
  ["detail", (j) => j.step_detail],
  ["page_id", (j) => j.page_id],
  ["builder_url", (j) => j.builder_url],
  ["warnings", (j) => j.warnings.map((w) => `${w.code}: ${w.message}`)],
  ["error", (j) => (j.error ? `${j.error.code}: ${j.error.message}` : null)],
  ["created", (j) => j.created_at],
  ["completed", (j) => j.completed_at],
];

/** Columns of `lp deployments list`. */
export const deploymentColumns: Column<Deployment>[] = [
  ["id", (d) => d.id],
  ["status", (d) => d.status],
  ["step", (d) => d.deploy_step],
  ["error", (d) => d.error_code],
  ["deployed_url", (d) => d.deployed_url],
  ["created", (d) => d.created_at],
];

/** Fields of one deployment. */
export const deploymentFields: Column<Deployment>[] = [
  ...deploymentColumns.slice(0, 4),
  ["message", (d) => d.error_message],
  ["deployed_url", (d) => d.deployed_url],
  ["deployed_at", (d) => d.deployed_at],
  ["page_id", (d) => d.page_id],
  ["created", (d) => d.created_at],
  ["updated", (d) => d.updated_at],
];
