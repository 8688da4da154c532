/** Rows of deployments, live sites, their files and checkout posts (migration 0004). */
export interface DeploymentTables {
  deployments: {
    id: string;
    page_id: string;
    account_id: string;
    status: "deploying" | "succeeded" | "failed";
    deploy_step: "rendering" | "uploading" | "activating" | null;
    error_code: "render_failed" | "worker_terminated" | "cancelled" | null;
    error_message: string | null;
    deployed_url: string | null;
    deployed_at: string | null;
    simulate: string | null;
    /** JSON: when each step began, by step name. */
    step_times: string;
    created_at: string;
    updated_at: string;
    /** When the deployment's work is next due; null once it is settled (`db/queue.ts`). */
    due_at: string | null;
    lease_owner: string | null;
    lease_expires_at: string | null;
  };
  sites: { account_id: string; slug: string; page_id: string; deployment_id: string; activated_at: string; url: string };
  site_files: {
    deployment_id: string;
    html: string;
    /** JSON: the page as it was rendered (what the checkout form is checked against). */
    page: string;
    created_at: string;
  };
  checkouts: {
    id: string;
    account_id: string;
    page_id: string;
    deployment_id: string;
    /** JSON: the submitted fields, by field key. */
    values: string;
    created_at: string;
  };
}
