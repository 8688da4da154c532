import { isChallenge, verify, type Delivery } from "@lp/webhooks";
import { formatDuration } from "../../../runtime/durations.js";
import { need } from "../checks.js";
import { dataOf, itemsOf } from "../http.js";
import { pollAtPace, type Scenario } from "../scenario-context.js";
import { checkEvent, isOurs, waitForDelivery } from "./receiver-wait.js";
import { show } from "../schema-issues.js";

/** The event the delivery check causes, by updating the run's own product. */
const EVENT = "product.updated";
const DAY_MS = 24 * 3600 * 1000;

/**
 * Webhooks (developer plane): an endpoint pointing at the run's receiver is created and verified by a
 * signed challenge; a product event arrives signed with its secret; after a rotation a delivery verifies
 * with both secrets; the deliveries list shows them; the endpoint is deleted.
 */
export async function webhooksArea(s: Scenario): Promise<void> {
  const { check, http, ledger, state } = s;
  const receiver = s.receiver!;
  const hooks = s.opts.webhooks as Exclude<Scenario["opts"]["webhooks"], false>;
  const base = "/v1/developer/webhook-endpoints";
  const path = (id: string, rest = "") => `${base}/${encodeURIComponent(id)}${rest}`;
  const wait = (match: (d: Delivery) => boolean) => waitForDelivery(receiver, (d) => isOurs(s, d) && match(d), s.opts.webhookTimeoutMs, s.signal);
  const late = `nothing arrived within ${formatDuration(s.opts.webhookTimeoutMs)} (--webhook-timeout) at ${hooks.url}`;

  const endpoint = await check("webhooks", "webhooks.create", "201 with the secret, verified: status active", async (c) => {
    const body = { url: hooks.url, events: [EVENT], environment: hooks.environment };
    const ex = await http.send(c, "POST", base, { body });
    const id = ledger.fromAnswer(ex, "webhook_endpoint", "webhook endpoint");
    c.status(ex, 201);
    c.schema(ex.body, s.contract.endpointCreatedResponse);
    const data = dataOf(ex);
    c.same(data, body, ["url", "environment"]);
    const verification = data.verification ?? {};
    c.rule(verification.outcome === "succeeded", `data.verification.outcome: expected "succeeded", got ${show(verification.outcome)}${verification.error ? ` (${show(verification.error)})` : ""}`);
    c.rule(data.status === "active", `data.status: expected "active" after a verified challenge, got ${show(data.status)}`);
    if (id && typeof data.secret === "string") receiver.setSecret(data.secret);
    return id && typeof data.secret === "string" ? { id, secret: data.secret as string } : undefined;
  });

  await check("webhooks", "webhooks.challenge", "a signed webhook.verification challenge reached the receiver", async (c) => {
    const { secret } = need(endpoint, "webhooks.create");
    const challenge = receiver.deliveries.find((d) => isOurs(s, d) && d.event?.type === "webhook.verification");
    if (!c.rule(challenge !== undefined, `no verification challenge reached ${hooks.url}`)) return;
    const result = verify(challenge!.body, challenge!.headers, secret);
    c.rule(result.ok, `signature: does not verify with the endpoint's secret${result.ok ? "" : ` (${result.reason}: ${result.message})`}`);
    c.rule(isChallenge(challenge!.body), 'body: expected { "type": "webhook.verification", "data": { "challenge": "<nonce>" } }');
    c.schema(challenge!.event?.data, s.contract.EVENT_DATA_SCHEMAS["webhook.verification"], { prefix: ["data"] });
  });

  await check("webhooks", "webhooks.get", "200 with the endpoint, active, without its secret", async (c) => {
    const { id } = need(endpoint, "webhooks.create");
    const ex = await http.send(c, "GET", path(id));
    if (!c.status(ex, 200)) return;
    c.schema(ex.body, s.contract.endpointResponse);
    c.rule(dataOf(ex).status === "active", `data.status: expected "active", got ${show(dataOf(ex).status)}`);
    c.rule(!("secret" in dataOf(ex)), "data.secret: present; the secret is shown only by create and rotate-secret");
  });

  await check("webhooks", "webhooks.list", "200 with the application's endpoints, this one among them", async (c) => {
    const { id } = need(endpoint, "webhooks.create");
    const ex = await http.send(c, "GET", base, { query: { per_page: 100 } });
    if (!c.status(ex, 200)) return;
    const items = itemsOf(ex);
    c.schema(ex.body, s.contract.endpointListResponse, { keep: (p) => p[0] !== "data" || typeof p[1] !== "number" || items[p[1]]?.id === id });
    // An application may hold more endpoints than a page: only a missing one on the last page is a finding.
    const more = (ex.body as { pagination?: { has_more?: unknown } }).pagination?.has_more === true;
    if (!items.some((e) => e.id === id)) c.rule(more, `the endpoint ${id} is missing`);
  });

  const event = await check("webhooks", `webhooks.delivery (${EVENT})`, "the event, signed with the endpoint's secret", async (c) => {
    const { secret } = need(endpoint, "webhooks.create");
    const productId = need(state.productJson, "products.create");
    const title = s.title("Linen apron, announced");
    const ex = await http.send(c, "PATCH", s.accountPath(`/products/${encodeURIComponent(productId)}`), { body: { title } });
    if (!c.status(ex, 200, "PATCH product")) return undefined;
    state.productJsonTitle = title;
    const d = await wait((d) => d.event?.type === EVENT && (d.event.data as { id?: unknown } | undefined)?.id === productId);
    if (!c.rule(d !== undefined, `no ${EVENT} of ${productId}: ${late}`)) return undefined;
    checkEvent(s, c, d!, [["endpoint's secret", secret]]);
    c.rule((d!.event!.data as { title?: unknown }).title === title, `data.title: expected the new title, got ${show((d!.event!.data as { title?: unknown }).title)}`);
    return d!.webhookId;
  });

  const rotated = await check("webhooks", "webhooks.rotate-secret", "200 with a new secret; the previous one valid 24 hours", async (c) => {
    const { id, secret } = need(endpoint, "webhooks.create");
    const ex = await http.send(c, "POST", path(id, "/rotate-secret"));
    if (!c.status(ex, 200)) return undefined;
    c.schema(ex.body, s.contract.endpointRotatedResponse);
    const data = dataOf(ex);
    if (!c.rule(typeof data.secret === "string" && data.secret !== secret, "data.secret: expected a new secret")) return undefined;
    const expires = Date.parse(String(data.previous_secret_expires_at));
    c.rule(Math.abs(expires - s.now() - DAY_MS) < 3600_000, `data.previous_secret_expires_at: expected about 24 hours ahead, got ${show(data.previous_secret_expires_at)}`);
    receiver.setSecret([data.secret, secret]);
    return { previous: secret, current: data.secret as string };
  });

  const tested = await check("webhooks", "webhooks.test", "202 with the delivery; a signed webhook.test arrives", async (c) => {
    const { id } = need(endpoint, "webhooks.create");
    const ex = await http.send(c, "POST", path(id, "/test"));
    c.status(ex, 202);
    c.schema(ex.body, s.contract.deliveryResponse);
    const d = await wait((d) => d.event?.type === "webhook.test" && (d.event.data as { endpoint_id?: unknown } | undefined)?.endpoint_id === id);
    if (!c.rule(d !== undefined, `no webhook.test: ${late}`)) return undefined;
    checkEvent(s, c, d!, []);
    return d;
  });

  await check("webhooks", "webhooks.rotation (both secrets)", "a delivery after rotation verifies with the new and the previous secret", async (c) => {
    const secrets = need(rotated, "webhooks.rotate-secret");
    const d = need(tested, "webhooks.test");
    const signatures = (d.headers["webhook-signature"] ?? "").split(" ").filter((part) => part.startsWith("v1,"));
    c.rule(signatures.length >= 2, `header webhook-signature: expected two v1 signatures during the overlap, got ${signatures.length}`);
    checkEvent(s, c, d, [["new secret", secrets.current], ["previous secret", secrets.previous]]);
  });

  await check("webhooks", "webhooks.deliveries", "200 with both deliveries, succeeded, and their attempts", async (c) => {
    const { id } = need(endpoint, "webhooks.create");
    const wanted = [need(event, `webhooks.delivery (${EVENT})`), tested?.webhookId].filter((x): x is string => typeof x === "string");
    const { value: items, done } = await pollAtPace(s, s.opts.webhookTimeoutMs, async () => {
      const ex = await http.send(c, "GET", path(id, "/deliveries"), { query: { per_page: 100 } });
      if (!c.status(ex, 200)) return { value: [], done: true };
      c.schema(ex.body, s.contract.deliveryListResponse);
      const items = itemsOf(ex);
      return { value: items, done: wanted.every((w) => items.find((d) => d.id === w)?.status === "succeeded") };
    });
    for (const w of wanted) {
      const delivery = items.find((d) => d.id === w);
      if (!c.rule(delivery !== undefined, `the delivery ${w} (the webhook-id received) is missing`)) continue;
      if (!done) c.problem(`the delivery ${w} is still ${delivery!.status} after ${formatDuration(s.opts.webhookTimeoutMs)}; the receiver answered 200`);
      const last = Array.isArray(delivery!.attempts) ? delivery!.attempts.at(-1) : undefined;
      c.rule(last?.outcome === "succeeded" && last?.status_code === 200, `the delivery ${w}: expected a succeeded attempt with status_code 200`);
      c.rule(last?.response_body === null, `the delivery ${w}: attempts[].response_body: expected null for a 2xx`);
    }
  });

  await check("webhooks", "webhooks.delete", "204, then 404 not_found", async (c) => {
    const { id } = need(endpoint, "webhooks.create");
    const ex = await http.send(c, "DELETE", path(id));
    if (!c.status(ex, 204)) return;
    ledger.markDeleted("webhook_endpoint", id);
    c.envelope(await http.send(c, "GET", path(id)), "not_found");
  });
}
