import type { ListQuery, Timestamp } from "./common.js";

/** The 202 answer of `deployments.create`. */
export interface DeploymentAccepted {
  deployment_id: string;
  poll_url: string;
  deployed_url: string | null;
  deployed_at: Timestamp | null;
}

/** A deployment of a page (spec: Deployment). */
export interface Deployment {
  id: string;
  page_id: string;
  status: "deploying" | "succeeded" | "failed";
  /** `rendering`, `uploading`, `activating`; null on success. */
  deploy_step: string | null;
  /** `render_failed`, `worker_terminated` or `cancelled` when failed. */
  error_code: string | null;
  error_message: string | null;
  deployed_url: string | null;
  deployed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Query of `deployments.list`. */
export interface DeploymentListQuery extends ListQuery {
  status?: "deploying" | "succeeded" | "failed";
}
