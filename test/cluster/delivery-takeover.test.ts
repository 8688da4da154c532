import { createReceiver, type Delivery, type Receiver } from "@lp/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason } from "../../core/src/testing/postgres-server.js";
import { pollUntil } from "../crash/crash-api.js";
import { startCluster, type Cluster } from "./cluster.js";
import { processesConnectedTo } from "./socket-owner.js";

if (!postgresAvailable) console.warn(postgresSkipReason("the cluster delivery takeover tests"));

/** How long a process's claim of a delivery holds without renewal (DELIVERY_LEASE_MS): DESIGN §12's 30 s. */
const LEASE_MS = 30_000;
/** What a takeover may take past the lease: the survivor's timer, the claim, one attempt to a local receiver. */
const SLACK_MS = 10_000;

/** A receiver that holds the first product.created attempt open until the test ends, and answers every later request 200. */
function useHoldingReceiver() {
  const state = { receiver: null as Receiver | null, requests: [] as Delivery[] };
  let release: () => void = () => {};
  const held = new Promise<number>((resolve) => (release = () => resolve(200)));
  beforeAll(async () => {
    state.receiver = await createReceiver({ respond: (_delivery, index) => (index === 0 ? held : 200) });
    state.receiver.on("request", (delivery) => void state.requests.push(delivery));
  });
  afterAll(async () => {
    release();
    await state.receiver?.close();
  });
  return state;
}

/** Registers an endpoint on process 0 and creates a product there; the first attempt of its product.created delivery. */
async function startDelivery(cluster: Cluster, receiver: Receiver, requests: Delivery[]) {
  const endpoint = await cluster.on(0, "POST", "/v1/developer/webhook-endpoints", {
    authorization: cluster.basic,
    body: { url: `${receiver.url}/hooks`, events: ["product.created"] },
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  receiver.setSecret(endpoint.json.data.secret);
  const made = await cluster.on(0, "POST", "products", { body: { title: "Delivered by a survivor", price: 5, product_type: "service" } });
  expect(made.status).toBe(201);
  const first = await pollUntil("the first attempt", 15_000, async () => requests.find((r) => r.eventType === "product.created"));
  return { endpointId: endpoint.json.data.id as string, productId: made.json.data.id as string, first };
}

/** After the holder of `first` was killed: the survivor's attempt, checked, and the delivery as the survivor records it. */
async function expectTakenOver(cluster: Cluster, receiver: Receiver, requests: Delivery[], started: { endpointId: string; productId: string; first: Delivery }, killedAt: number) {
  const { first } = started;
  const taken = await pollUntil(`the delivery taken over within ${LEASE_MS + SLACK_MS} ms of the kill`, LEASE_MS + SLACK_MS, async () =>
    requests.find((r) => r !== first && r.eventType === "product.created"),
  );
  const after = performance.now() - killedAt;
  expect(taken.webhookId).toBe(first.webhookId);
  expect(taken.event?.data).toMatchObject({ id: started.productId });
  expect(taken.verification?.ok).toBe(true);
  // Not before the claim lapsed: a second attempt while the first process could still be sending would be
  // a double send. A loaded machine only delays the takeover, so this bound holds whatever the load.
  expect(taken.receivedAt.getTime() - first.receivedAt.getTime()).toBeGreaterThanOrEqual(LEASE_MS - 1_000);
  const survivor = cluster.nodes.findIndex((n) => n.alive);
  const delivery = await pollUntil("the delivery recorded as succeeded", 10_000, async () => {
    const list = await cluster.on(survivor, "GET", `/v1/developer/webhook-endpoints/${started.endpointId}/deliveries?per_page=10`, { authorization: cluster.basic });
    const found = list.json.data.find((d: { id: string }) => d.id === first.webhookId);
    return found?.status === "succeeded" ? found : undefined;
  });
  // The killed process recorded nothing of its attempt; the survivor's is the one in the history.
  expect(delivery.attempts.filter((a: { outcome: string }) => a.outcome === "succeeded")).toHaveLength(1);
  expect(receiver.events.filter((e) => e.type === "product.created")).toHaveLength(1);
  return after;
}

/**
 * A delivery whose attempt was under way in a process that is SIGKILLed: the claim it held lapses, and another
 * process on the same database takes the delivery over within the lease and delivers it, with the same
 * `webhook-id` (receivers deduplicate on it).
 */
describe.skipIf(!postgresAvailable)("a killed process's delivery, with a survivor started after the claim", () => {
  const hooks = useHoldingReceiver();
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ processes: 1 });
  }, 60_000);
  afterAll(async () => cluster?.stop());

  it("is taken over within the lease and delivered once more with the same webhook-id", { timeout: LEASE_MS + SLACK_MS + 60_000 }, async () => {
    const started = await startDelivery(cluster, hooks.receiver!, hooks.requests);
    // Process 0 is alone when it claims; the survivor starts while that attempt is held open.
    await cluster.add();
    await cluster.kill(0);
    const after = await expectTakenOver(cluster, hooks.receiver!, hooks.requests, started, performance.now());
    console.log(`delivery takeover (survivor started after the claim): delivered ${(after / 1000).toFixed(1)} s after the kill (lease ${LEASE_MS / 1000} s)`);
  });
});

describe.skipIf(!postgresAvailable)("a killed process's delivery, with a survivor running before the delivery existed", () => {
  const hooks = useHoldingReceiver();
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ processes: 2 });
  }, 60_000);
  afterAll(async () => cluster?.stop());

  it("is taken over within the lease by the process that was not sending it", { timeout: LEASE_MS + SLACK_MS + 60_000 }, async () => {
    const receiver = hooks.receiver!;
    const started = await startDelivery(cluster, receiver, hooks.requests);
    // The process whose connection stays open is the one in the middle of the attempt (an idle keep-alive
    // connection of the endpoint's verification closes after the receiver's keep-alive timeout).
    const pids = cluster.nodes.map((n) => n.proc.child.pid!);
    const holder = await pollUntil("one process connected to the receiver", 15_000, async () => {
      const connected = processesConnectedTo(receiver.port, pids);
      return connected.length === 1 ? connected[0] : undefined;
    });
    const victim = pids.indexOf(holder);
    await cluster.kill(victim);
    const after = await expectTakenOver(cluster, receiver, hooks.requests, started, performance.now());
    console.log(`delivery takeover (survivor already running): process ${victim} killed, delivered ${(after / 1000).toFixed(1)} s after the kill (lease ${LEASE_MS / 1000} s)`);
  });
});
