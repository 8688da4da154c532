import { z } from "zod";
import { paginationSchema, timestampSchema } from "./resource-schemas.js";

export const deploymentSchema = z.object({
  id: z.uuid(),
  page_id: z.uuid(),
  status: z.enum(["deploying", "succeeded", "failed"]),
  deploy_step: z.enum(["rendering", "uploading", "activating"]).nullable(),
  error_code: z.enum(["render_failed", "worker_terminated", "cancelled"]).nullable(),
  error_message: z.string().nullable(),
  deployed_url: z.url().nullable(),
  deployed_at: timestampSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

export const deploymentResponse = z.object({ data: deploymentSchema });
export const deploymentListResponse = z.object({ data: z.array(deploymentSchema), pagination: paginationSchema });
export const deploymentAcceptedResponse = z.object({
  data: z.object({ deployment_id: z.uuid(), poll_url: z.string(), deployed_url: z.null(), deployed_at: z.null() }),
});
