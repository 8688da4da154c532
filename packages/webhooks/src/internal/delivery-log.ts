import type { Delivery, ExpectOptions, ReceiverEventName, WebhookEvent } from "../receiver-types.js";

interface Waiter {
  type: string;
  count: number;
  resolve: (events: WebhookEvent[]) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** The receiver's memory: deliveries, deduplicated events, `expect` waiters and listeners. No I/O. */
export interface DeliveryLog {
  readonly deliveries: Delivery[];
  readonly events: WebhookEvent[];
  nextSeq(): number;
  /** Records a request as soon as it has been read. */
  add(delivery: Delivery): void;
  /** Records the answer; an accepted event joins `events` once, and waiters are checked. */
  settle(delivery: Delivery): void;
  expect(options: ExpectOptions): Promise<WebhookEvent[]>;
  on(event: ReceiverEventName, listener: (delivery: Delivery) => void): () => void;
  clear(): void;
  /** Rejects every pending `expect`; later calls reject at once. */
  close(): void;
}

/** Whether a delivery's event counts: it verified, or nothing was configured to verify it with. */
export function isAccepted(delivery: Delivery): boolean {
  return delivery.verification === undefined || delivery.verification.ok;
}

/** Creates an empty {@link DeliveryLog}. */
export function createDeliveryLog(): DeliveryLog {
  const deliveries: Delivery[] = [];
  const events: WebhookEvent[] = [];
  const seen = new Set<string>();
  const waiters = new Set<Waiter>();
  const listeners = { request: new Set<(d: Delivery) => void>(), delivery: new Set<(d: Delivery) => void>() };
  let seq = 0;
  let closed = false;

  const emit = (name: ReceiverEventName, delivery: Delivery) => {
    for (const listener of listeners[name]) {
      try {
        listener(delivery);
      } catch (error) {
        // A failing listener must not turn into a failed reply to the sender.
        process.emitWarning(`webhook receiver "${name}" listener threw: ${String(error)}`);
      }
    }
  };
  const matching = (type: string) => events.filter((event) => event.type === type);
  const check = () => {
    for (const waiter of waiters) {
      const found = matching(waiter.type);
      if (found.length < waiter.count) continue;
      clearTimeout(waiter.timer);
      waiters.delete(waiter);
      waiter.resolve(found);
    }
  };

  return {
    deliveries,
    events,
    nextSeq: () => ++seq,
    add(delivery) {
      deliveries.push(delivery);
      emit("request", delivery);
    },
    settle(delivery) {
      const { event } = delivery;
      if (event && isAccepted(delivery)) {
        const key = delivery.webhookId ?? event.id ?? `#${delivery.seq}`;
        delivery.duplicate = seen.has(key);
        if (!delivery.duplicate) {
          seen.add(key);
          events.push(event);
        }
      }
      emit("delivery", delivery);
      if (!delivery.duplicate) check();
    },
    expect({ type, count = 1, within = 5000 }) {
      if (closed) return Promise.reject(new Error("The webhook receiver is closed."));
      const found = matching(type);
      if (found.length >= count) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter: Waiter = { type, count, resolve, reject, timer: undefined as never };
        waiter.timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(summarize(type, count, within, deliveries, events)));
        }, within);
        waiters.add(waiter);
      });
    },
    on(name, listener) {
      listeners[name].add(listener);
      return () => listeners[name].delete(listener);
    },
    clear() {
      deliveries.length = 0;
      events.length = 0;
      seen.clear();
      seq = 0;
    },
    close() {
      closed = true;
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error(`The webhook receiver closed while waiting for "${waiter.type}".`));
      }
      waiters.clear();
    },
  };
}

/** Explains a missed expectation with what did arrive, so a failing test says why on its own. */
function summarize(type: string, count: number, within: number, deliveries: Delivery[], events: WebhookEvent[]) {
  const got = events.filter((event) => event.type === type).length;
  const byType = new Map<string, number>();
  for (const event of events) byType.set(event.type, (byType.get(event.type) ?? 0) + 1);
  const kinds = [...byType].map(([name, n]) => `${name} ×${n}`).join(", ") || "none";
  const rejected = deliveries.filter((delivery) => !isAccepted(delivery));
  const reasons = rejected.map((delivery) => (delivery.verification?.ok === false ? delivery.verification.reason : ""));
  const rejectedText = rejected.length
    ? `; ${rejected.length} rejected (${[...new Set(reasons)].join(", ")}), first: ${firstMessage(rejected)}`
    : "";
  return (
    `Expected ${count} "${type}" event${count === 1 ? "" : "s"} within ${within} ms, got ${got}. ` +
    `Received ${deliveries.length} request${deliveries.length === 1 ? "" : "s"}; events: ${kinds}${rejectedText}.`
  );
}

function firstMessage(rejected: Delivery[]): string {
  const first = rejected[0].verification;
  return first && !first.ok ? first.message : "";
}
