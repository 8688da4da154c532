import { toTimestamp, type Clock } from "../deps.js";
import type { EndpointRecord } from "./records.js";
import { circuitAfterFailure, circuitAfterSuccess } from "./retry-policy.js";
import type { Scheduler, TimerHandle } from "./scheduler.js";
import type { DeliveryRef, WebhookStore } from "./webhook-store.js";

/** Why a delivery is parked: its endpoint is paused or unverified (`held`), or its circuit is open (`waiting`). */
export type ParkReason = "held" | "waiting";

/** What the keeper needs; `wake` makes a parked delivery run again now. */
export interface CircuitKeeperDeps {
  store: WebhookStore;
  clock: Clock;
  scheduler: Scheduler;
  wake: (ref: DeliveryRef) => void;
  onError: (what: string, error: unknown) => void;
}

/**
 * The circuit of every endpoint, and the deliveries parked behind it. When a circuit opens, deliveries
 * that come due wait; at `opens_until` they are woken, the first becomes the probe, and the rest wait
 * for its result. A success closes the circuit and wakes them all; a failure re-opens it for longer,
 * and the tenth re-open in a row (or a 410) disables the endpoint, whose parked deliveries then run
 * into the disabled gate and are skipped.
 */
export function createCircuitKeeper(deps: CircuitKeeperDeps) {
  const { store, clock } = deps;
  const parked: Record<ParkReason, Map<string, Map<string, DeliveryRef>>> = { held: new Map(), waiting: new Map() };
  const timers = new Map<string, TimerHandle>();
  const probing = new Set<string>();
  const save = (endpoint: EndpointRecord) => void store.putEndpoint(endpoint).catch((error) => deps.onError(`saving endpoint ${endpoint.id}`, error));

  function release(reason: ParkReason, endpointId: string): void {
    const refs = parked[reason].get(endpointId);
    parked[reason].delete(endpointId);
    for (const ref of refs?.values() ?? []) deps.wake(ref);
  }

  function arm(endpoint: EndpointRecord): void {
    if (timers.has(endpoint.id) || !endpoint.circuit.opens_until) return;
    const delay = Date.parse(endpoint.circuit.opens_until) - clock.now().getTime();
    timers.set(endpoint.id, deps.scheduler.setTimeout(() => {
      timers.delete(endpoint.id);
      release("waiting", endpoint.id);
    }, Math.max(0, delay)));
  }

  /** Wakes everything parked for the endpoint (it became active again, or was disabled). */
  function resume(endpointId: string): void {
    timers.get(endpointId)?.cancel();
    timers.delete(endpointId);
    release("held", endpointId);
    release("waiting", endpointId);
  }

  return {
    isProbing: (endpointId: string) => probing.has(endpointId),
    park(reason: ParkReason, endpoint: EndpointRecord, ref: DeliveryRef): void {
      let refs = parked[reason].get(endpoint.id);
      if (!refs) parked[reason].set(endpoint.id, (refs = new Map()));
      refs.set(ref.id, ref);
      if (reason === "waiting") arm(endpoint);
    },
    /** Marks the endpoint's probe as started (the circuit turns half-open). */
    startProbe(endpoint: EndpointRecord): void {
      probing.add(endpoint.id);
      if (endpoint.circuit.state !== "half_open") save({ ...endpoint, circuit: { ...endpoint.circuit, state: "half_open" } });
    },
    endProbe: (endpointId: string) => void probing.delete(endpointId),
    /** Records an attempt's result on the endpoint's circuit. */
    record(endpointId: string, ok: boolean, probe: boolean, gone: boolean): void {
      const current = store.endpoint(endpointId);
      if (!current) return;
      if (ok) {
        const clean = current.circuit.state === "closed" && current.circuit.consecutive_failures === 0;
        if (!clean) save({ ...current, circuit: circuitAfterSuccess(), updated_at: toTimestamp(clock.now()) });
        if (!clean || probe) release("waiting", endpointId);
        return;
      }
      const at = toTimestamp(clock.now());
      const { circuit, disable } = circuitAfterFailure(current.circuit, clock.now().getTime(), probe);
      const reason = gone ? "gone" : disable ? "circuit_breaker" : null;
      const next: EndpointRecord = reason ? { ...current, circuit, status: "disabled", disabled_reason: reason, updated_at: at } : { ...current, circuit, updated_at: at };
      save(next);
      if (reason) resume(endpointId);
      else if (circuit.state === "open") arm(next);
    },
    resume,
    /** Forgets an endpoint, or with no id every endpoint, without waking anything. */
    forget(endpointId?: string): void {
      for (const [id, timer] of timers) if (!endpointId || id === endpointId) (timer.cancel(), timers.delete(id));
      for (const map of Object.values(parked)) endpointId ? map.delete(endpointId) : map.clear();
      endpointId ? probing.delete(endpointId) : probing.clear();
    },
  };
}

export type CircuitKeeper = ReturnType<typeof createCircuitKeeper>;
