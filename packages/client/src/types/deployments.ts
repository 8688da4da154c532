import type { ListQuery } from "./common.js";

/** A deployment and the 202 answer that starts one (from @lp/contract). */
export type { Deployment, DeploymentAccepted } from "@lp/contract";

/** Query of `deployments.list`. */
export interface DeploymentListQuery extends ListQuery {
  status?: "deploying" | "succeeded" | "failed";
}
