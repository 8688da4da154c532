import type { Redis } from "ioredis";
import { toTimestamp, type Clock } from "../deps.js";
import type { EndpointRecord } from "./records.js";
import { circuitAfterFailure, circuitAfterSuccess } from "./retry-policy.js";
import { clusterKeys, type WebhookStore } from "./webhook-store.js";

/** Deletes the probe key only if this holder still owns it (its lease may have run out and passed on). */
const END_PROBE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW_PROBE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/** What the shared circuit needs; `resume` runs again every pending delivery of an endpoint. */
export interface SharedCircuitDeps {
  redis: Redis;
  prefix: string;
  store: WebhookStore;
  /** Runs a change of one endpoint alone across the cluster. */
  exclusive: <T>(endpointId: string, fn: () => Promise<T>) => Promise<T>;
  clock: Clock;
  /** How long a probe may hold the endpoint's probe lease (longer than one attempt). */
  probeLeaseMs: number;
  token: () => string;
  resume: (endpointId: string) => Promise<void>;
}

/**
 * The circuit of each endpoint for a cluster. Its state is the endpoint record's `circuit`, read fresh
 * from the shared store where a decision is taken and changed alone across the cluster (a lease in Redis), so a circuit
 * opened by one process holds every process back. The one probe after a cool-down is whoever takes the
 * endpoint's probe lease in Redis (SET NX PX): a prober that dies frees it when the lease ends.
 */
export function createSharedCircuit(deps: SharedCircuitDeps) {
  const { store, clock } = deps;
  const probeKey = clusterKeys(deps.prefix).probe;

  /** Applies `change` to the stored endpoint, alone across the cluster; null from `change` means no write. */
  async function update(endpoint: Pick<EndpointRecord, "application_id" | "id">, change: (current: EndpointRecord) => EndpointRecord | null) {
    return deps.exclusive(endpoint.id, async () => {
      const current = await store.fetchEndpoint(endpoint.application_id, endpoint.id);
      const next = current ? change(current) : null;
      if (next) await store.putEndpoint(next);
      return next;
    });
  }

  const renewals = new Map<string, ReturnType<typeof setInterval>>();
  return {
    /** Takes the probe of `endpoint` (its circuit turns half-open): a token to end it with, or null when another process probes. */
    async tryProbe(endpoint: EndpointRecord): Promise<string | null> {
      const token = deps.token();
      if ((await deps.redis.set(probeKey(endpoint.id), token, "PX", deps.probeLeaseMs, "NX")) !== "OK") return null;
      // Renewed until endProbe, so the lease can be short: a prober that dies lets another probe soon.
      const renewal = setInterval(() => void deps.redis.eval(RENEW_PROBE, 1, probeKey(endpoint.id), token, deps.probeLeaseMs).catch(() => {}), Math.max(1, Math.floor(deps.probeLeaseMs / 3)));
      renewal.unref?.();
      renewals.set(token, renewal);
      await update(endpoint, (e) => (e.circuit.state === "half_open" ? null : { ...e, circuit: { ...e.circuit, state: "half_open" } }));
      return token;
    },
    async endProbe(endpointId: string, token: string): Promise<void> {
      clearInterval(renewals.get(token));
      renewals.delete(token);
      await deps.redis.eval(END_PROBE, 1, probeKey(endpointId), token);
    },
    /**
     * Records an attempt's result on the endpoint's circuit (`endpoint` as read for the attempt), and runs
     * again what waited on it when it closed or disabled.
     */
    async record(endpoint: EndpointRecord, ok: boolean, probe: boolean, gone: boolean): Promise<void> {
      // A success on a clean circuit (as read just before the attempt) changes nothing: no lock, no write.
      if (ok && !probe && endpoint.circuit.state === "closed" && endpoint.circuit.consecutive_failures === 0) return;
      let wake = false;
      await update(endpoint, (current) => {
        if (ok) {
          if (current.circuit.state === "closed" && current.circuit.consecutive_failures === 0) return null;
          wake = true;
          return { ...current, circuit: circuitAfterSuccess(), updated_at: toTimestamp(clock.now()) };
        }
        const { circuit, disable } = circuitAfterFailure(current.circuit, clock.now().getTime(), probe);
        const reason = gone ? "gone" : disable ? "circuit_breaker" : null;
        // A disabled endpoint's waiting deliveries run into the disabled gate and are skipped.
        wake = reason !== null;
        const at = toTimestamp(clock.now());
        return reason ? { ...current, circuit, status: "disabled", disabled_reason: reason, updated_at: at } : { ...current, circuit, updated_at: at };
      });
      if (wake) await deps.resume(endpoint.id);
    },
  };
}

export type SharedCircuit = ReturnType<typeof createSharedCircuit>;
