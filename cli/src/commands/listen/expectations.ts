import type { Delivery } from "@lp/webhooks";
import { UsageError } from "../../runtime/errors.js";
import { toInt } from "../../runtime/parse.js";

/**
 * What `--expect` and `--expect-attempts` wait for. `messages`: distinct messages (by `webhook-id`)
 * whose signature verified and that lp listen acknowledged with a 2xx, so a retried message counts
 * once, and only once it succeeded. `attempts`: every verified request of the type, whatever the reply.
 */
export interface Expectation {
  type: string;
  count: number;
  kind: "messages" | "attempts";
}

/** Parses `TYPE[:COUNT]` (`--expect`) or `TYPE:COUNT` (`--expect-attempts`). */
export function toExpectation(spec: string, kind: Expectation["kind"]): Expectation {
  const flag = kind === "messages" ? "--expect" : "--expect-attempts";
  const match = /^([^:\s]+)(?::(\d+))?$/.exec(spec);
  if (!match) throw new UsageError(`${flag}: '${spec}' must look like TYPE${kind === "messages" ? " or TYPE" : ""}:COUNT.`);
  return { type: match[1], count: match[2] ? toInt(match[2], flag, 1)! : 1, kind };
}

const isSuccess = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/** Counts answered deliveries against the expectations; `met` resolves once all of them hold. */
export function createTally(expectations: Expectation[]) {
  const acknowledged = new Map<string, Set<string>>();
  const attempts = new Map<string, number>();
  let requests = 0;
  let rejected = 0;
  const reasons = new Set<string>();
  let resolveMet!: () => void;
  const met = new Promise<void>((resolve) => (resolveMet = resolve));
  const countOf = (e: Expectation) => (e.kind === "messages" ? (acknowledged.get(e.type)?.size ?? 0) : (attempts.get(e.type) ?? 0));
  const isMet = () => expectations.length > 0 && expectations.every((e) => countOf(e) >= e.count);

  return {
    met,
    isMet,
    /** Takes one answered request (the receiver's `delivery` event). */
    record(delivery: Delivery): void {
      requests++;
      if (delivery.verification && !delivery.verification.ok) {
        rejected++;
        reasons.add(delivery.verification.reason);
        return;
      }
      const type = delivery.event?.type;
      if (!type || delivery.challenge || !delivery.verified) return;
      attempts.set(type, (attempts.get(type) ?? 0) + 1);
      if (isSuccess(delivery.response?.status)) {
        const ids = acknowledged.get(type) ?? new Set<string>();
        ids.add(delivery.webhookId ?? delivery.event?.id ?? `#${delivery.seq}`);
        acknowledged.set(type, ids);
      }
      if (isMet()) resolveMet();
    },
    /** What arrived compared with what was expected, for the timeout message. */
    summary(): string {
      const wanted = expectations.map((e) => `${e.type} ${countOf(e)}/${e.count}${e.kind === "attempts" ? " attempts" : ""}`).join(", ");
      const got = [...attempts].map(([type, n]) => `${type} ×${n} (${acknowledged.get(type)?.size ?? 0} acknowledged)`).join(", ") || "none";
      return `Expectations not met: ${wanted}. Received ${requests} request(s); verified events: ${got}${rejected ? `; ${rejected} rejected (${[...reasons].join(", ")})` : ""}.`;
    },
  };
}

/** What {@link createTally} returns. */
export type Tally = ReturnType<typeof createTally>;
