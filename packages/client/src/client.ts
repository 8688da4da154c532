import { collect, paginate } from "./paginate.js";
import { createAdminApi } from "./resources/admin.js";
import { createDeploymentsApi } from "./resources/deployments.js";
import { createJobsApi, createPagesApi } from "./resources/pages.js";
import { createProductsApi } from "./resources/products.js";
import { createWebhooksApi } from "./resources/webhooks.js";
import { createTransport, planeOf, type RawResponse, type RequestOptions, type TransportOptions } from "./transport.js";
import type { Deployment } from "./types/deployments.js";
import type { Job } from "./types/pages.js";
import { pollUntil, type WaitOptions } from "./wait.js";

/** Options of {@link createClient}: the target and credentials its transport uses. */
export type ClientOptions = TransportOptions;

/**
 * A typed client of the landing page service, on ofetch with retries off (a poll is never repeated
 * behind your back). Errors are thrown as `ApiError`, unreachable servers as `TransportError`.
 *
 * @example
 * const client = createClient({ baseUrl: "http://127.0.0.1:4010", token, accountId: "acct_dev" });
 * const { job_id } = await client.pages.create({ product_id });
 * const job = await client.waitForJob(job_id, { onProgress: (j) => console.log(j.step) });
 */
export function createClient(options: ClientOptions) {
  const transport = createTransport(options);
  const jobs = createJobsApi(transport);
  const deployments = createDeploymentsApi(transport);

  return {
    products: createProductsApi(transport),
    pages: createPagesApi(transport),
    jobs,
    deployments,
    webhooks: createWebhooksApi(transport),
    admin: createAdminApi(transport),

    /**
     * A raw call; `path` starts with `/` and picks the credentials by its prefix (`/v1/accounts`:
     * bearer token, `/v1/developer`: Basic, `/_admin`: admin key). Resolves with the parsed body.
     */
    async request<T = unknown>(method: string, path: string, init: RequestOptions = {}): Promise<T> {
      return (await transport.send<T>(method, path, planeOf(path), init, false)).data;
    },
    /** As {@link request}, with the status and headers too. */
    requestRaw<T = unknown>(method: string, path: string, init: RequestOptions = {}): Promise<RawResponse<T>> {
      return transport.send<T>(method, path, planeOf(path), init, false);
    },

    /** Polls a generation job until it is `completed` or `failed`, and resolves with it. */
    waitForJob(jobId: string, wait: WaitOptions<Job> = {}): Promise<Job> {
      return pollUntil(`Job ${jobId}`, () => jobs.get(jobId, { signal: wait.signal }), (j) => j.status !== "processing", wait);
    },
    /** Polls a deployment until it is `succeeded` or `failed`, and resolves with it. */
    waitForDeployment(pageId: string, deploymentId: string, wait: WaitOptions<Deployment> = {}): Promise<Deployment> {
      return pollUntil(
        `Deployment ${deploymentId}`,
        () => deployments.get(pageId, deploymentId, { signal: wait.signal }),
        (d) => d.status !== "deploying",
        wait,
      );
    },

    paginate,
    collect,
    /** Where requests go. */
    baseUrl: transport.baseUrl,
    /** The account the account-plane methods act on, if configured. */
    accountId: options.accountId,
  };
}

/** The object {@link createClient} returns. */
export type Client = ReturnType<typeof createClient>;
