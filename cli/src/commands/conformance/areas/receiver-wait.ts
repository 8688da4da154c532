import { verify, type Delivery, type Receiver } from "@lp/webhooks";
import { Interrupted, type Check } from "../checks.js";
import type { Scenario } from "../scenario-context.js";
import { show } from "../schema-issues.js";

/**
 * Resolves with the first request the receiver answered that `match` accepts (one already in counts), or
 * undefined once `timeoutMs` has passed: an event, never a fixed sleep.
 */
export function waitForDelivery(receiver: Receiver, match: (d: Delivery) => boolean, timeoutMs: number, signal: AbortSignal): Promise<Delivery | undefined> {
  const already = receiver.deliveries.find((d) => d.response !== undefined && match(d));
  if (already) return Promise.resolve(already);
  return new Promise((resolve, reject) => {
    const finish = (settle: () => void) => {
      off();
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      settle();
    };
    const off = receiver.on("delivery", (d) => {
      if (match(d)) finish(() => resolve(d));
    });
    const timer = setTimeout(() => finish(() => resolve(undefined)), timeoutMs);
    const onAbort = () => finish(() => reject(new Interrupted()));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** True for requests to the run's own endpoint path (a tunnel's URL may be found by others). */
export function isOurs(s: Scenario, d: Delivery): boolean {
  return d.path.startsWith(`/lp-conformance/${s.opts.runId}`);
}

/**
 * Holds a delivered event to the contract: its signature against `secrets` (each must verify on its own),
 * the envelope (`eventSchema`), its `data` (`EVENT_DATA_SCHEMAS` of its type), account, environment and
 * the event-type header.
 */
export function checkEvent(s: Scenario, c: Check, d: Delivery, secrets: Array<[label: string, secret: string]>): void {
  for (const [label, secret] of secrets) {
    const result = verify(d.body, d.headers, secret);
    c.rule(result.ok, `signature: does not verify with the ${label}${result.ok ? "" : ` (${result.reason}: ${result.message})`}`);
  }
  const event = d.event;
  if (!c.rule(event !== undefined, "body: not a JSON event with a type")) return;
  const type = event!.type;
  const { contract } = s;
  c.schema(event, contract.eventSchema);
  const dataSchema = contract.EVENT_DATA_SCHEMAS[type as keyof Contract["EVENT_DATA_SCHEMAS"]];
  if (dataSchema) c.schema(event!.data, dataSchema, { prefix: ["data"] });
  if (type !== "webhook.test") c.rule(event!.account_id === s.opts.account, `account_id: expected ${show(s.opts.account)}, got ${show(event!.account_id)}`);
  if (s.opts.webhooks) c.rule(event!.environment === s.opts.webhooks.environment, `environment: expected ${show(s.opts.webhooks.environment)}, got ${show(event!.environment)}`);
  c.rule(d.eventType === type, `header webhook-event-type: expected ${show(type)}, got ${show(d.eventType ?? null)}`);
}

type Contract = Scenario["contract"];
