import type { RequestOptions, Transport } from "../transport.js";
import type { ListPage } from "../types/common.js";
import type { Deployment, DeploymentAccepted, DeploymentListQuery } from "../types/deployments.js";
import type { WriteOptions } from "./products.js";

type ReadOptions = Pick<RequestOptions, "signal" | "headers">;

/** `deployments`: deploying pages and their history (scopes `pages:deploy`, `pages:read`). */
export function createDeploymentsApi(t: Transport) {
  const path = (pageId: string, id?: string) =>
    t.accountPath(`/pages/${encodeURIComponent(pageId)}/deployments${id === undefined ? "" : `/${encodeURIComponent(id)}`}`);
  return {
    /**
     * Deploys the page as it stands. Answers 202 at once; poll with `waitForDeployment`. A deployment
     * already in flight is an `ApiError` `deployment_in_progress` whose details name it.
     */
    async create(pageId: string, options: WriteOptions = {}): Promise<DeploymentAccepted> {
      return (await t.send<{ data: DeploymentAccepted }>("POST", path(pageId), "account", { ...options, body: {} })).data.data;
    },
    /** Deployment history, newest first. */
    async list(pageId: string, query: DeploymentListQuery = {}, options: ReadOptions = {}): Promise<ListPage<Deployment>> {
      return (await t.send<ListPage<Deployment>>("GET", path(pageId), "account", { ...options, query: { ...query } })).data;
    },
    /** One deployment: `deploying`, `succeeded` (with `deployed_url`) or `failed` (with `error_code`). */
    async get(pageId: string, id: string, options: ReadOptions = {}): Promise<Deployment> {
      return (await t.send<{ data: Deployment }>("GET", path(pageId, id), "account", options)).data.data;
    },
  };
}

/** The `deployments` namespace. */
export type DeploymentsApi = ReturnType<typeof createDeploymentsApi>;
