import { IMAGE_TYPES, isAccountId, isUuid, LpError, MAX_IMAGE_BYTES, MAX_IMAGES, notFound, productTypeSchema, SCOPES } from "@lp/core";
import type { H3, H3Event } from "h3";
import { readLimited } from "../http/body.js";
import type { Grant, ServerContext } from "../http/route.js";
import { jsonError } from "./guard.js";
import type { DashboardHub } from "./hub.js";
import { runTrigger } from "./trigger.js";
import { relayUpload } from "./upload.js";

/** Largest body the dashboard relays (an import of a data dir can be big). */
const CALL_LIMIT = 32 * 1024 * 1024;
/** Most accounts and applications listed. */
const LIST_LIMIT = 500;
const METHODS = new Set(["GET", "POST", "PATCH", "DELETE", "PUT"]);
/** The `Lp-Simulate` modes the server honours, offered by the fault-injection panel. */
export const SIMULATE_MODES = ["slow", "generation_failed", "deployment_failed"] as const;
const MAX_DELAY_MS = 60_000;
/** Headers of a logged request that describe its old connection, not the request: a replay sets its own. */
const NOT_REPLAYED = new Set(["host", "content-length", "connection", "keep-alive", "transfer-encoding", "x-request-id", "expect"]);

/** A relayed call: the dashboard asks the server's own API, in-process, as the right principal. */
interface CallInput {
  method: string;
  path: string;
  body?: unknown;
  app_id?: string;
  simulate?: string;
}

function parseCall(value: unknown): CallInput | string {
  if (!value || typeof value !== "object") return "The body must be a JSON object.";
  const v = value as Record<string, unknown>;
  if (typeof v.method !== "string" || !METHODS.has(v.method)) return "method must be GET, POST, PATCH, PUT or DELETE.";
  if (typeof v.path !== "string" || v.path.length > 2048 || !/^\/(v1|_admin)\/[A-Za-z0-9_\-./?=&%:,+]*$/.test(v.path) || /\.\.|\/\//.test(v.path)) {
    return "path must be an API path under /v1/ or /_admin/.";
  }
  if (v.app_id !== undefined && (typeof v.app_id !== "string" || v.app_id.length > 100)) return "app_id must be an application id.";
  if (v.simulate !== undefined && !(SIMULATE_MODES as readonly string[]).includes(v.simulate as string)) return `simulate must be one of ${SIMULATE_MODES.join(", ")}.`;
  return { method: v.method, path: v.path, body: v.body, app_id: v.app_id as string | undefined, simulate: v.simulate as string | undefined };
}

/** The dashboard's JSON API: state for the views, the request log, relayed API calls, and fault settings. */
export function createDashboardApi(app: H3, server: ServerContext, hub: DashboardHub) {
  const { core } = server;
  server.grants ??= new WeakMap();
  const grants = server.grants;

  /** Acts as the path's account with every scope, or as the chosen application; admin routes need nothing more. */
  const grantFor =
    (appId: string | undefined): Grant =>
    async (route, params) => {
      if (route.plane === "account") {
        if (!isAccountId(params.account_id)) throw notFound("account", params.account_id);
        return { kind: "account", account_id: params.account_id, scopes: [...SCOPES] };
      }
      if (route.plane === "app") {
        const record = appId ? await core.accounts.getApp(appId) : null;
        if (!record) throw new LpError("unauthenticated", "Choose an application for developer-plane calls.");
        return { kind: "app", application_id: record.application_id, account_ids: record.account_ids };
      }
      return null;
    };

  /** Sends an in-process request as the dashboard: granted, and marked as its own in the request log. */
  function relay(req: Request, appId?: string): Promise<Response> {
    grants.set(req, grantFor(appId));
    hub.requests.markDashboard(req, { source: "dashboard", granted: true, app_id: appId });
    return Promise.resolve(app.fetch(req));
  }

  async function call(event: H3Event): Promise<Response> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(await readLimited(event.req, CALL_LIMIT)).toString("utf8"));
    } catch (error) {
      if (error instanceof LpError) return jsonError(413, "payload_too_large", error.message);
      return jsonError(400, "validation_error", "The body must be JSON.");
    }
    const input = parseCall(parsed);
    if (typeof input === "string") return jsonError(400, "validation_error", input);
    const headers = new Headers();
    if (input.body !== undefined) headers.set("content-type", "application/json");
    if (input.simulate) headers.set("lp-simulate", input.simulate);
    const target = new URL(input.path, event.url.origin);
    // `%2e%2e` segments are resolved by the URL parser: check where the call really lands.
    if (!/^\/(v1|_admin)\//.test(target.pathname)) return jsonError(400, "validation_error", "path must be an API path under /v1/ or /_admin/.");
    const req = new Request(target, {
      method: input.method,
      headers,
      body: input.body === undefined || input.method === "GET" ? undefined : JSON.stringify(input.body),
    });
    const res = await relay(req, input.app_id);
    const out = new Headers({ "content-type": res.headers.get("content-type") ?? "application/json" });
    const requestId = res.headers.get("x-request-id");
    if (requestId) out.set("x-request-id", requestId);
    return new Response(res.body, { status: res.status, headers: out });
  }

  async function state(): Promise<Response> {
    const accounts = await core.accounts.list(LIST_LIMIT);
    const apps = (await core.accounts.listApps(LIST_LIMIT)).map(({ secret_hash: _hidden, ...app }) => app);
    return Response.json({
      data: {
        accounts,
        apps,
        faults: { generation_step_ms: core.delays.generationStepMs, deployment_step_ms: core.delays.deploymentStepMs, simulate_modes: SIMULATE_MODES },
        request_log_capacity: hub.requests.capacity,
        // The time every stamp reads: with `--clock manual`, the header shows it (it moves only when told).
        clock: { now: core.time.now().toISOString(), mode: core.time.mode },
        // What /healthz says: a fault under way (writes refused) is shown on every view.
        storage: { kind: core.database.kind, fault: core.storageHealth.state() },
        // The choices forms offer come from the API's own schemas, so they never offer what it refuses.
        product_types: productTypeSchema.options,
        // The bounds the products API puts on uploaded images, checked in the page before a file is sent.
        uploads: { max_files: MAX_IMAGES, max_bytes: MAX_IMAGE_BYTES, types: Object.keys(IMAGE_TYPES) },
      },
    });
  }

  async function setFaults(event: H3Event): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.from(await readLimited(event.req, 4096)).toString("utf8")) as Record<string, unknown>;
    } catch {
      return jsonError(400, "validation_error", "The body must be JSON.");
    }
    const delay = (value: unknown) => (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_DELAY_MS ? value : null);
    const gen = body.generation_step_ms === undefined ? core.delays.generationStepMs : delay(body.generation_step_ms);
    const dep = body.deployment_step_ms === undefined ? core.delays.deploymentStepMs : delay(body.deployment_step_ms);
    if (gen === null || dep === null) return jsonError(400, "validation_error", `Delays are whole milliseconds from 0 to ${MAX_DELAY_MS}.`);
    core.delays.generationStepMs = gen;
    core.delays.deploymentStepMs = dep;
    return state();
  }

  /**
   * Generation jobs of an account (newest first, at most `limit`): the API has no list of them, and the views
   * show each as a timeline with the time each step began, including the failed ones that made no page.
   */
  async function jobs(q: URLSearchParams): Promise<Response> {
    const accountId = q.get("account_id");
    if (!accountId || !isAccountId(accountId)) return jsonError(400, "validation_error", "account_id must be an account id.");
    const pageId = q.get("page_id");
    const limit = Math.min(Math.max(Number(q.get("limit")) || 20, 1), 100);
    const view = await core.pages.listJobs(accountId, { pageId: pageId ?? undefined, limit });
    return Response.json({ data: view });
  }

  /** Deployments of a page (newest first, at most 20) with the time each step began, which the API's view leaves out. */
  async function deployments(q: URLSearchParams): Promise<Response> {
    const accountId = q.get("account_id");
    const pageId = q.get("page_id") ?? "";
    if (!accountId || !isAccountId(accountId)) return jsonError(400, "validation_error", "account_id must be an account id.");
    if (!isUuid(pageId)) return jsonError(400, "validation_error", "page_id must be a page id.");
    const view = await core.deployments.history(accountId, pageId, 20);
    return Response.json({ data: view });
  }

  /**
   * Sends a logged request again, in-process: with its own headers (the caller's credentials, which stay on
   * the server), or with the dashboard's grant when the dashboard sent it. Answers the new entry's id.
   */
  async function replay(event: H3Event, id: string): Promise<Response> {
    const r = hub.requests.replayable(id);
    if (!r) return jsonError(404, "not_found", "That request has left the log.");
    const bodyless = r.method === "GET" || r.method === "HEAD";
    if (r.body === null && !bodyless) return jsonError(422, "not_replayable", "The log did not keep this request's body whole (multipart, or over 16 KiB), so it cannot be sent again.");
    const headers = new Headers();
    for (const [key, value] of r.headers) if (!NOT_REPLAYED.has(key)) headers.set(key, value);
    const req = new Request(new URL(r.url, event.url.origin), { method: r.method, headers, body: bodyless || !r.body ? undefined : r.body });
    const granted = r.mark?.granted === true;
    if (granted) grants.set(req, grantFor(r.mark?.app_id));
    hub.requests.markDashboard(req, { source: "replay", granted, app_id: r.mark?.app_id });
    const res = await app.fetch(req);
    await res.arrayBuffer();
    return Response.json({ data: { request_id: res.headers.get("x-request-id"), status: res.status } }, { status: 201 });
  }

  return {
    async handle(event: H3Event, path: string): Promise<Response> {
      const method = event.req.method;
      if (path === "/jobs" && method === "GET") return jobs(event.url.searchParams);
      if (path === "/deployments" && method === "GET") return deployments(event.url.searchParams);
      if (path === "/state" && method === "GET") return state();
      if (path === "/faults" && method === "POST") return setFaults(event);
      if (path === "/call" && method === "POST") return call(event);
      if (path === "/upload" && method === "POST") return relayUpload(event.req, event.url, (req) => relay(req));
      if (path === "/trigger" && method === "POST") return runTrigger(event.req, event.url.origin, core, (req) => relay(req));
      if (path === "/requests" && method === "GET") {
        const q = event.url.searchParams;
        const number = (name: string) => (q.get(name) && /^\d{1,9}$/.test(q.get(name)!) ? Number(q.get(name)) : undefined);
        const text = (name: string) => q.get(name)?.slice(0, 200) || undefined;
        const filter = { status: text("status"), path: text("path"), plane: text("plane"), source: text("source"), before: number("before"), limit: number("limit") };
        return Response.json(hub.requests.list(filter));
      }
      const again = /^\/requests\/(req_[A-Za-z0-9]{1,64})\/replay$/.exec(path);
      if (again && method === "POST") return replay(event, again[1]);
      const one = /^\/requests\/(req_[A-Za-z0-9]{1,64})$/.exec(path);
      if (one && method === "GET") {
        const entry = hub.requests.get(one[1]);
        return entry ? Response.json({ data: entry }) : jsonError(404, "not_found", "That request has left the log.");
      }
      return jsonError(404, "not_found", `No dashboard API at ${method} ${path}.`);
    },
  };
}
