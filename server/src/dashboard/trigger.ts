import { setTimeout as wait } from "node:timers/promises";
import { EVENT_TYPES, type EventType } from "@lp/contract/events";
import { isAccountId, LpError, type Core } from "@lp/core";
import { readLimited } from "../http/body.js";
import { jsonError } from "./guard.js";
import { sectionsOf, TRIGGER_SCENARIOS, type FixtureSection, type TriggerStep } from "./trigger-scenarios.js";

/** Largest trigger body: a fixture is a few small objects. */
const TRIGGER_LIMIT = 256 * 1024;
/** How often, and how many times, a job or deployment is looked at while the scenario waits for it (2 minutes). */
const POLL_MS = 100;
const POLL_TIMES = 1200;

/** Sends an in-process request with the dashboard's grant (the path's account, every scope). */
export type Relay = (req: Request) => Promise<Response>;

/** Which field of a delivery's `payload.data` names what this run made, so its deliveries are told from others. */
export interface DeliveryMatch {
  field: "id" | "job_id" | "deployment_id";
  value: string;
}

/** A step the API refused or that ended otherwise than the scenario needs: answered to the page as is. */
class StepFailure extends Error {
  constructor(readonly response: Response) {
    super("step failed");
  }
}

/** A sample value for a required checkout field the fixture says nothing about, valid for its type. */
function sampleValue(field: { field_type: string; options?: string[] | null }): string {
  if (field.field_type === "email") return "buyer@example.com";
  if (field.field_type === "tel") return "+1 555 0100";
  if (field.field_type === "date") return "2026-01-01";
  if (field.field_type === "select") return field.options?.[0] ?? "";
  if (field.field_type === "checkbox") return "on";
  return "Sample";
}

function parseInput(value: unknown): { event: EventType; accountId: string; fixture: Record<FixtureSection, Record<string, unknown>> } | string {
  if (!value || typeof value !== "object" || Array.isArray(value)) return "The body must be a JSON object with event, account_id and fixture.";
  const v = value as Record<string, unknown>;
  if (typeof v.event !== "string" || !(EVENT_TYPES as readonly string[]).includes(v.event)) {
    return `event must be one of the catalogue's events: ${EVENT_TYPES.join(", ")}.`;
  }
  if (typeof v.account_id !== "string" || !isAccountId(v.account_id)) return "account_id must be an account id.";
  const fixture = v.fixture;
  if (!fixture || typeof fixture !== "object" || Array.isArray(fixture)) return "fixture must be a JSON object of the fixture's sections.";
  const needs = sectionsOf(TRIGGER_SCENARIOS[v.event as EventType]);
  for (const key of Object.keys(fixture)) {
    if (!(needs as string[]).includes(key)) return `fixture.${key.slice(0, 40)} is not read by ${v.event}: it reads ${needs.join(", ")}.`;
  }
  for (const key of needs) {
    const section = (fixture as Record<string, unknown>)[key];
    if (!section || typeof section !== "object" || Array.isArray(section)) return `fixture.${key} must be a JSON object.`;
  }
  return { event: v.event as EventType, accountId: v.account_id, fixture: fixture as Record<FixtureSection, Record<string, unknown>> };
}

/**
 * `POST /_dashboard/api/trigger`: runs the calls that cause `event` on an account, as `lp trigger` does, each a
 * real relayed API call (validation, events and the request log included). Answers 201 with what each step did
 * and how to tell this run's deliveries; a step the API refused is answered with the API's status and error
 * and the step's name; nothing after it runs.
 */
export async function runTrigger(req: Request, origin: string, core: Core, relay: Relay): Promise<Response> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(await readLimited(req, TRIGGER_LIMIT)).toString("utf8"));
  } catch (error) {
    if (error instanceof LpError) return jsonError(413, "payload_too_large", `The fixture is over ${TRIGGER_LIMIT / 1024} KiB.`);
    return jsonError(400, "validation_error", "The body must be JSON.");
  }
  const input = parseInput(parsed);
  if (typeof input === "string") return jsonError(400, "validation_error", input);
  const { event, accountId, fixture } = input;
  const base = `/v1/accounts/${accountId}`;
  const steps: { step: TriggerStep; method: string; path: string; status: number }[] = [];
  const made: { product_id?: string; page_id?: string; job_id?: string; deployment_id?: string; checkout_status?: number } = {};
  let page: Record<string, any> | undefined;

  /** One relayed call; a refusal ends the run with the API's answer, named by its step. */
  async function send(step: TriggerStep, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const init: RequestInit = { method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await relay(new Request(new URL(path, origin), init));
    steps.push({ step, method, path, status: res.status });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // Every API answer is JSON; anything else is reported by its status alone.
    }
    if (!res.ok) throw new StepFailure(Response.json({ error: { ...(json?.error ?? { code: "api_error", message: `HTTP ${res.status}` }), step }, data: { steps } }, { status: res.status }));
    return json?.data;
  }
  const fail = (status: number, code: string, message: string, step: TriggerStep) => new StepFailure(Response.json({ error: { code, message, step }, data: { steps } }, { status }));

  async function settle<T extends { status: string }>(step: TriggerStep, read: () => Promise<T>, done: string[]): Promise<T> {
    for (let i = 0; i < POLL_TIMES; i++) {
      const current = await read();
      if (done.includes(current.status)) return current;
      await wait(POLL_MS);
    }
    throw fail(504, "timeout", `The ${step === "page" || step === "page_failed" ? "generation job" : "deployment"} did not settle within ${(POLL_MS * POLL_TIMES) / 1000} s.`, step);
  }

  async function generate(step: "page" | "page_failed") {
    const productId = made.product_id!;
    const accepted = await send(step, "POST", `${base}/pages`, { ...fixture.page, product_id: productId }, step === "page_failed" ? { "lp-simulate": "generation_failed" } : {});
    made.job_id = accepted.job_id;
    const job = await settle(step, () => core.pages.getJob(accountId, accepted.job_id), ["completed", "failed"]);
    const expected = step === "page_failed" ? "failed" : "completed";
    if (job.status !== expected) throw fail(422, "unexpected_outcome", `The generation job ${job.status}${job.error ? ` (${job.error.message})` : ""}; ${event} needs it ${expected}.`, step);
    if (job.page_id) {
      made.page_id = job.page_id;
      page = await send(step, "GET", `${base}/pages/${job.page_id}`);
    }
  }

  async function deploy(step: "deploy" | "deploy_started" | "deploy_failed") {
    const pagePath = `${base}/pages/${made.page_id}/deployments`;
    const accepted = await send(step, "POST", pagePath, undefined, step === "deploy_failed" ? { "lp-simulate": "deployment_failed" } : {});
    made.deployment_id = accepted.deployment_id;
    if (step === "deploy_started") return;
    const d = await settle(step, () => core.deployments.get(accountId, made.page_id!, accepted.deployment_id), ["succeeded", "failed"]);
    const expected = step === "deploy_failed" ? "failed" : "succeeded";
    if (d.status !== expected) throw fail(422, "unexpected_outcome", `The deployment ${d.status}${d.error_message ? ` (${d.error_message})` : ""}; ${event} needs it ${expected}.`, step);
    if (d.deployed_url) page = { ...page, deployed_url: d.deployed_url };
  }

  /**
   * Posts the live site's checkout form as a browser would: the fixture's values, a sample for a required field
   * it lacks. The fields are the deployed snapshot's (what the site checks a post against).
   */
  async function checkout() {
    const site = /^\/sites\/([^/]+)\/([^/]+)\/$/.exec(new URL(page?.deployed_url ?? "http://x/").pathname);
    const live = site ? await core.sites.find(accountId, decodeURIComponent(site[2])) : null;
    if (!site || !live) throw fail(422, "unexpected_outcome", "The deployment has no live site to post the checkout form of.", "checkout");
    const values = new URLSearchParams();
    for (const field of live.page.checkout_fields) {
      const given = fixture.checkout[field.field_key];
      if (given !== undefined && given !== null) values.set(field.field_key, String(given));
      else if (field.is_required) values.set(field.field_key, sampleValue(field));
    }
    const res = await relay(new Request(new URL(`${site[0]}checkout`, origin), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: values.toString() }));
    await res.arrayBuffer();
    steps.push({ step: "checkout", method: "POST", path: `${site[0]}checkout`, status: res.status });
    made.checkout_status = res.status;
    if (res.status !== 200) throw fail(422, "checkout_rejected", `The site refused the checkout form (HTTP ${res.status}); the page's fields are ${live.page.checkout_fields.map((f) => `${f.field_key} (${f.field_type}${f.is_required ? ", required" : ""}${f.options?.length ? `: ${f.options.join(" | ")}` : ""})`).join(", ")}.`, "checkout");
  }

  try {
    for (const step of TRIGGER_SCENARIOS[event].steps) {
      if (step === "product") made.product_id = (await send(step, "POST", `${base}/products`, fixture.product)).id;
      else if (step === "product_update") await send(step, "PATCH", `${base}/products/${made.product_id}`, fixture.product_update);
      else if (step === "product_delete") await send(step, "DELETE", `${base}/products/${made.product_id}`);
      else if (step === "page" || step === "page_failed") await generate(step);
      else if (step === "page_update") await send(step, "PATCH", `${base}/pages/${made.page_id}`, fixture.page_update);
      else if (step === "page_delete") await send(step, "DELETE", `${base}/pages/${made.page_id}`);
      else if (step === "checkout") await checkout();
      else await deploy(step);
    }
  } catch (error) {
    if (error instanceof StepFailure) return error.response;
    throw error;
  }
  return Response.json({ data: { event, steps, made, match: matchOf(event, made) } }, { status: 201 });
}

/** How this run's delivery is found among the endpoint's: by what the event's data names. */
function matchOf(event: EventType, made: { product_id?: string; page_id?: string; job_id?: string; deployment_id?: string }): DeliveryMatch {
  if (event.startsWith("product.")) return { field: "id", value: made.product_id! };
  if (event === "page.generation_failed") return { field: "job_id", value: made.job_id! };
  if (event.startsWith("page.")) return { field: "id", value: made.page_id! };
  if (event === "checkout.submitted") return { field: "deployment_id", value: made.deployment_id! };
  return { field: "id", value: made.deployment_id! };
}
