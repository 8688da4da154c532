import { z } from "zod";
import { dataOf, listOf, timestampSchema } from "./common.js";

/** Steps of a deployment, in order. */
export const DEPLOY_STEPS = ["rendering", "uploading", "activating"] as const;
/** Why a deployment failed. */
export const DEPLOY_ERROR_CODES = ["render_failed", "worker_terminated", "cancelled"] as const;

/** A deployment of a page (spec: Deployment). */
export const deploymentSchema = z.object({
  id: z.uuid(),
  page_id: z.uuid(),
  status: z.enum(["deploying", "succeeded", "failed"]),
  deploy_step: z.enum(DEPLOY_STEPS).nullable(),
  error_code: z.enum(DEPLOY_ERROR_CODES).nullable(),
  error_message: z.string().nullable(),
  deployed_url: z.url().nullable(),
  deployed_at: timestampSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

/** The 202 answer of a deployment. */
export const deploymentAcceptedSchema = z.object({
  deployment_id: z.uuid(),
  poll_url: z.string(),
  deployed_url: z.null(),
  deployed_at: z.null(),
});

export const deploymentResponse = dataOf(deploymentSchema);
export const deploymentListResponse = listOf(deploymentSchema);
export const deploymentAcceptedResponse = dataOf(deploymentAcceptedSchema);

export type DeployStep = (typeof DEPLOY_STEPS)[number];
export type DeployErrorCode = (typeof DEPLOY_ERROR_CODES)[number];
export type Deployment = z.infer<typeof deploymentSchema>;
export type DeploymentAccepted = z.infer<typeof deploymentAcceptedSchema>;
