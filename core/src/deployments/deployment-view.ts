import type { Deployment, DeployStep } from "@lp/contract";
import type { PageRecord } from "../pages/page-view.js";
import type { RenderablePage } from "../render/renderable-page.js";

/** Steps of a deployment, in order (part of the wire contract). */
export { DEPLOY_STEPS, type DeployStep } from "@lp/contract";

/** A deployment as stored: the API's fields, with its owner and the fault it was asked to simulate. */
export interface DeploymentRecord extends Deployment {
  account_id: string;
  simulate: string | null;
  /** When each step began (ISO times by step name); absent in records written before it was kept. */
  step_times?: Partial<Record<DeployStep, string>>;
}

/** The immutable files of one deployment: the rendered page and the snapshot it was rendered from. */
export interface SiteSnapshot {
  html: string;
  page: RenderablePage;
  deployment_id: string;
}

/** What a site address points at; replaced in one write when a deployment activates. */
export interface SitePointer {
  page_id: string;
  deployment_id: string;
  activated_at: string;
  /** The `deployed_url` of the deployment, kept so a restart can finish recording it (absent in older data dirs). */
  url?: string;
}

/** The deployment as the API returns it. */
export function toDeploymentView(d: DeploymentRecord): Deployment {
  return {
    id: d.id,
    page_id: d.page_id,
    status: d.status,
    deploy_step: d.deploy_step,
    error_code: d.error_code,
    error_message: d.error_message,
    deployed_url: d.deployed_url,
    deployed_at: d.deployed_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

/** The renderer's view of a page record. */
export function toRenderable(page: PageRecord): RenderablePage {
  return {
    id: page.id,
    slug: page.slug,
    language: page.language,
    product: page.product,
    content: page.content,
    global_theme: page.global_theme,
    seo_config: page.seo_config,
    checkout_fields: page.checkout_fields,
    hero_image_url: page.hero_image_url,
  };
}
