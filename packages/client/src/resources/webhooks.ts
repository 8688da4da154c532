import type { RequestOptions, Transport } from "../transport.js";
import type { ListPage, ListQuery } from "../types/common.js";
import type {
  DeliveryListQuery,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreateInput,
  WebhookEndpointCreated,
  WebhookEndpointRotated,
  WebhookEndpointUpdateInput,
  WebhookVerifyResult,
} from "../types/webhooks.js";

type Options = Pick<RequestOptions, "signal" | "headers">;

/** `webhooks`: the developer plane's webhook endpoints (HTTP Basic with `appId` and `appSecret`). */
export function createWebhooksApi(t: Transport) {
  const base = "/v1/developer/webhook-endpoints";
  const path = (id: string, rest = "") => `${base}/${encodeURIComponent(id)}${rest}`;
  const call = async <T>(method: string, p: string, init: RequestOptions = {}) => (await t.send<{ data: T }>(method, p, "developer", init)).data.data;
  return {
    /** Registers an endpoint; the answer carries `secret` once and the outcome of the verification attempted before it returns. */
    create: (input: WebhookEndpointCreateInput, options: Options = {}) => call<WebhookEndpointCreated>("POST", base, { ...options, body: input }),
    /** The application's endpoints. The spec names no query parameters; a cursor is passed on if given. */
    async list(query: ListQuery = {}, options: Options = {}): Promise<ListPage<WebhookEndpoint>> {
      return (await t.send<ListPage<WebhookEndpoint>>("GET", base, "developer", { ...options, query: { ...query } })).data;
    },
    get: (id: string, options: Options = {}) => call<WebhookEndpoint>("GET", path(id), options),
    /** Updates url, events (replaced atomically), status (`paused`, `disabled`) or concurrency. */
    update: (id: string, input: WebhookEndpointUpdateInput, options: Options = {}) => call<WebhookEndpoint>("PATCH", path(id), { ...options, body: input }),
    async delete(id: string, options: Options = {}): Promise<void> {
      await t.send("DELETE", path(id), "developer", options);
    },
    /** Sends a freshly signed challenge now and answers with the outcome. */
    verify: (id: string, options: Options = {}) => call<WebhookVerifyResult>("POST", path(id, "/verify"), { ...options, body: {} }),
    /** A new secret, shown once; the previous one keeps signing for 24 hours. */
    rotateSecret: (id: string, options: Options = {}) => call<WebhookEndpointRotated>("POST", path(id, "/rotate-secret"), { ...options, body: {} }),
    /** Schedules a signed `webhook.test` delivery (202); nothing is sent inline. */
    test: (id: string, options: Options = {}) => call<WebhookDelivery>("POST", path(id, "/test"), { ...options, body: {} }),
    /** Deliveries of the endpoint, newest first, with their attempts. */
    async deliveries(id: string, query: DeliveryListQuery = {}, options: Options = {}): Promise<ListPage<WebhookDelivery>> {
      return (await t.send<ListPage<WebhookDelivery>>("GET", path(id, "/deliveries"), "developer", { ...options, query: { ...query } })).data;
    },
    /** Marks a stored delivery pending for one manual attempt, made asynchronously. */
    retry: (id: string, deliveryId: string, options: Options = {}) =>
      call<WebhookDelivery>("POST", path(id, `/deliveries/${encodeURIComponent(deliveryId)}/retry`), { ...options, body: {} }),
  };
}

/** The `webhooks` namespace. */
export type WebhooksApi = ReturnType<typeof createWebhooksApi>;
