import type { Receiver } from "@lp/webhooks";
import { Interrupted, type Recorder } from "./checks.js";
import type { Contract } from "./contract.js";
import type { Http } from "./http.js";
import type { Ledger } from "./ledger.js";

/** What the scenario is asked to do: parsed flags and resolved config. */
export interface ScenarioOptions {
  /** The marker in every title and URL the run creates, e.g. `lpc-1a2b3c4d`. */
  runId: string;
  account: string;
  /** The application of the developer plane, when the webhook checks run. */
  application: string | null;
  pollIntervalMs: number;
  jobTimeoutMs: number;
  deployTimeoutMs: number;
  webhookTimeoutMs: number;
  /** A `--narrow-token` was given: the 403 check runs. */
  narrow: boolean;
  /** The webhook checks: the endpoint's environment and the URL it is registered with; false with `--skip-webhooks`. */
  webhooks: false | { environment: "production" | "test"; url: string };
}

/** Everything with a side effect, injected: tests replace the receiver, the tunnel, the clock and the contract. */
export interface ScenarioDeps {
  contract: Contract;
  http: Http;
  /** Pauses between polls; rejects when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
  /** The run's signal (Ctrl-C). */
  signal: AbortSignal;
  /** A fresh UUID, for ids that must be unknown to the instance. */
  randomUuid(): string;
  /** The webhook receiver the endpoint points at (through the tunnel with `--tunnel`); null with `--skip-webhooks`. */
  receiver: Receiver | null;
  /** The image the multipart create uploads. */
  imageFile(): Promise<File>;
  /** A progress line on stderr. */
  progress(text: string): void;
}

/** Ids the areas hand each other. */
export interface RunState {
  productJson?: string;
  productJsonTitle?: string;
  productMultipart?: string;
  productService?: string;
  page?: string;
  pageInline?: string;
  deployment?: string;
}

/** What every area is given. */
export interface Scenario extends ScenarioDeps {
  opts: ScenarioOptions;
  check: Recorder["check"];
  skipped: Recorder["skipped"];
  ledger: Ledger;
  state: RunState;
  /** `/v1/accounts/{account}` + `rest`. */
  accountPath(rest: string): string;
  /** A title carrying the run's marker, so the run's records are found by `q` and known by anyone who sees them. */
  title(name: string): string;
}

/**
 * Calls `get` at the poll interval until it says done or `timeoutMs` has passed (then the last answer is
 * returned, not done). The first call goes out at once; nothing ever waits longer than the interval.
 */
export async function pollAtPace<T>(s: Scenario, timeoutMs: number, get: () => Promise<{ value: T; done: boolean }>): Promise<{ value: T; done: boolean }> {
  const deadline = s.now() + timeoutMs;
  for (;;) {
    const answer = await get();
    if (answer.done) return answer;
    const left = deadline - s.now();
    if (left <= 0) return answer;
    await s.sleep(Math.min(s.opts.pollIntervalMs, left), s.signal);
  }
}

/** A pause that ends early, with {@link Interrupted}, when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Interrupted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Interrupted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
