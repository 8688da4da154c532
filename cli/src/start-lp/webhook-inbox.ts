import type { Receiver, WebhookEvent } from "@lp/webhooks";

/** Options of {@link WebhookInbox.next}. */
export interface NextOptions {
  /** How long to wait for the event, in milliseconds. Default 5000. */
  timeoutMs?: number;
}

/**
 * The verified webhook events a {@link startLp} server delivered to its own receiver, each handed out
 * once, in order of arrival.
 */
export interface WebhookInbox {
  /** The receiver's URL, registered as a webhook endpoint of the dev application. */
  readonly url: string;
  /** The registered endpoint's id (`we_...`). */
  readonly endpointId: string;
  /** The endpoint's signing secret (`whsec_...`); every counted delivery verified against it. */
  readonly secret: string;
  /** Every verified event so far (retries of one message counted once), in order of arrival. */
  readonly received: readonly WebhookEvent[];
  /**
   * Resolves with the earliest verified event of `type` (any type when absent) that no earlier `next`
   * returned, waiting for it if none is in yet; rejects after `timeoutMs` naming what did arrive.
   */
  next(type?: string, options?: NextOptions): Promise<WebhookEvent>;
}

interface Waiter {
  type: string | undefined;
  resolve(event: WebhookEvent): void;
}

/** Wraps a receiver (with its secret set) as an inbox; `close()` rejects what is still awaited. */
export function createInbox(receiver: Receiver, endpointId: string, secret: string): WebhookInbox & { close(): void } {
  const received: WebhookEvent[] = [];
  const taken = new Set<WebhookEvent>();
  const waiters: Waiter[] = [];
  const closers = new Set<(error: Error) => void>();
  const seen = new Set<string>();

  receiver.on("delivery", (delivery) => {
    // Only what verified counts: a forged or stale request must never satisfy a test.
    if (!delivery.verified || !delivery.event || delivery.challenge) return;
    const id = delivery.webhookId ?? delivery.event.id;
    if (id !== undefined) {
      if (seen.has(id)) return;
      seen.add(id);
    }
    received.push(delivery.event);
    const index = waiters.findIndex((w) => w.type === undefined || w.type === delivery.event!.type);
    if (index === -1) return;
    const [waiter] = waiters.splice(index, 1);
    taken.add(delivery.event);
    waiter!.resolve(delivery.event);
  });

  return {
    url: receiver.url,
    endpointId,
    secret,
    received,
    next(type, options = {}) {
      const ready = received.find((event) => !taken.has(event) && (type === undefined || event.type === type));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      const timeoutMs = options.timeoutMs ?? 5000;
      return new Promise<WebhookEvent>((resolve, reject) => {
        const fail = (error: Error) => {
          clearTimeout(timer);
          const at = waiters.indexOf(waiter);
          if (at !== -1) waiters.splice(at, 1);
          closers.delete(fail);
          reject(error);
        };
        const waiter: Waiter = {
          type,
          resolve: (event) => {
            clearTimeout(timer);
            closers.delete(fail);
            resolve(event);
          },
        };
        const timer = setTimeout(() => {
          const got = received.map((event) => event.type).join(", ") || "none";
          fail(new Error(`No ${type ?? "webhook"} event within ${timeoutMs} ms (received so far: ${got}).`));
        }, timeoutMs);
        waiters.push(waiter);
        closers.add(fail);
      });
    },
    close() {
      for (const fail of [...closers]) fail(new Error("The lp server was closed before the awaited webhook event arrived."));
    },
  };
}
