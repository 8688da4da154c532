import type { Delivery, ReceiverReply } from "@lp/webhooks";

const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "expect"]);

/**
 * Relays a delivery to `target` with its headers (signature included, so the target can verify it)
 * and answers with the target's status and body. An unreachable target is a 502.
 */
export async function forward(target: string, delivery: Delivery): Promise<ReceiverReply> {
  const headers = Object.fromEntries(Object.entries(delivery.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
  try {
    const response = await fetch(target, { method: delivery.method, headers, body: delivery.body, redirect: "manual" });
    const body = await response.text();
    const status = response.status >= 200 && response.status <= 599 ? response.status : 502;
    return { status, body, headers: { "content-type": response.headers.get("content-type") ?? "text/plain" } };
  } catch (error) {
    const message = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
    return { status: 502, body: JSON.stringify({ error: "forward_failed", message: `Could not reach ${target}: ${message}` }), headers: { "content-type": "application/json" } };
  }
}
