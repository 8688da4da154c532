/** Response shapes of deployments: written once, in @lp/contract. */
export { deploymentSchema, deploymentResponse, deploymentListResponse, deploymentAcceptedResponse } from "@lp/contract";
