import type { Circuit } from "./records.js";

/** Delays before attempts 1, 2, … in ms (each counted from the previous failure): DESIGN §9. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** Circuit breaker constants (DESIGN §9). */
export const CIRCUIT_RULES = {
  /** Consecutive failures that open the circuit. */
  failureThreshold: 5,
  /** Wait before the first probe; doubled on each re-open. */
  baseCooldownMs: 30_000,
  maxCooldownMs: 600_000,
  /** Re-opens in a row that disable the endpoint. */
  maxReopens: 10,
} as const;

/** Whether a circuit holds every attempt back at `at` (ISO time): open, its probe not due yet. */
export function isWaiting(circuit: Circuit, at: string): boolean {
  return circuit.state === "open" && circuit.opens_until !== null && circuit.opens_until > at;
}

/** A fresh, closed circuit. */
export const closedCircuit = (): Circuit => ({ state: "closed", consecutive_failures: 0, reopen_count: 0, opens_until: null });

/** `ms` moved by up to ±20%, from a random number in [0, 1). */
export function withJitter(ms: number, random: number): number {
  return Math.max(0, Math.round(ms * (1 + (random * 2 - 1) * 0.2)));
}

/** Delay before the next scheduled attempt after `made` of them, or null when the schedule is over. */
export function nextRetryDelay(schedule: readonly number[], made: number, random: () => number): number | null {
  return made < schedule.length ? withJitter(schedule[made], random()) : null;
}

/** How long the circuit stays open after its `reopenCount`-th re-open (0 for the first opening). */
export function cooldownMs(reopenCount: number): number {
  return Math.min(CIRCUIT_RULES.baseCooldownMs * 2 ** reopenCount, CIRCUIT_RULES.maxCooldownMs);
}

/** A success closes the circuit and forgets every failure. */
export function circuitAfterSuccess(): Circuit {
  return closedCircuit();
}

/**
 * The circuit after a failed attempt at time `now` (ms). A failed probe re-opens it for twice as
 * long; the tenth re-open in a row asks for the endpoint to be disabled.
 */
export function circuitAfterFailure(circuit: Circuit, now: number, wasProbe: boolean): { circuit: Circuit; disable: boolean } {
  const failures = circuit.consecutive_failures + 1;
  if (wasProbe) {
    const reopens = circuit.reopen_count + 1;
    const until = new Date(now + cooldownMs(reopens)).toISOString();
    return { circuit: { state: "open", consecutive_failures: failures, reopen_count: reopens, opens_until: until }, disable: reopens >= CIRCUIT_RULES.maxReopens };
  }
  if (circuit.state === "closed" && failures >= CIRCUIT_RULES.failureThreshold) {
    const until = new Date(now + cooldownMs(circuit.reopen_count)).toISOString();
    return { circuit: { ...circuit, state: "open", consecutive_failures: failures, opens_until: until }, disable: false };
  }
  return { circuit: { ...circuit, consecutive_failures: failures }, disable: false };
}

/** Parses `--retry-schedule`-style input ("0,1s,2s,5m") into ms. Throws a RangeError naming the bad item. */
export function parseRetrySchedule(text: string): number[] {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const out = text.split(",").map((raw) => {
    const item = raw.trim();
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(item);
    if (!match) throw new RangeError(`Invalid retry delay '${item}': use numbers with ms, s, m or h, e.g. 0,1s,2s.`);
    return Math.round(Number(match[1]) * units[match[2] ?? "ms"]);
  });
  if (out.length === 0 || out.length > 50) throw new RangeError("A retry schedule has 1 to 50 delays.");
  return out;
}
