import type { RouteDef } from "../http/route.js";

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The response headers the server sends, described once and referenced from each response. */
export const responseHeaderComponents = {
  "X-Request-Id": {
    description: "Id of this exchange, also quoted as `request_id` in error bodies; sent on every response",
    required: true,
    schema: { type: "string", pattern: "^req_[0-9a-z]+$" },
  },
  Location: { description: "The URL to poll for the outcome of the accepted work", required: true, schema: { type: "string" } },
  Link: {
    description: 'The next page, as `<path?cursor=...>; rel="next"`, when `pagination.has_more` is true',
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
  },
  "WWW-Authenticate": { description: "The scheme to authenticate with", required: true, schema: { type: "string" } },
  "Retry-After": {
    description: "Seconds to wait before sending again (a request with the same Idempotency-Key still running, or the store unavailable)",
    schema: { type: "integer", minimum: 1 },
  },
  Allow: { description: "The methods this path takes", required: true, schema: { type: "string" } },
};

/** True for statuses whose answer an Idempotency-Key replays (pipeline.ts `isReplayable`). */
const replayable = (status: number) => (status >= 200 && status < 400) || status === 404;

/**
 * The `headers` object of one documented response: what the server sets for this route and status
 * (respond.ts, errors.ts, pipeline.ts, and the request id every response carries).
 */
export function responseHeaders(route: RouteDef, status: number, isList: boolean): Record<string, unknown> {
  const headers: Record<string, unknown> = { "X-Request-Id": ref("X-Request-Id") };
  if (status === 202) headers.Location = ref("Location");
  if (status === 200 && isList) headers.Link = ref("Link");
  if (route.plane === "account" && (route.method === "POST" || route.method === "PATCH") && replayable(status)) {
    headers["Idempotent-Replayed"] = ref("Idempotent-Replayed");
  }
  if (status === 401) headers["WWW-Authenticate"] = ref("WWW-Authenticate");
  if (status === 409 || status === 429 || status === 503 || status === 507) headers["Retry-After"] = ref("Retry-After");
  if (status === 405) headers.Allow = ref("Allow");
  return headers;
}
