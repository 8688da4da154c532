import type { Worker } from "../db/worker.js";

/** The workers of a core's background work (generation jobs, deployments) seen as one. */
export interface BackgroundWork {
  /** Runs in flight and claims under way, of every worker (what a manual clock's settle counts). */
  readonly pending: number;
  /** Resolves once no worker runs or claims anything. */
  onIdle(): Promise<void>;
  /** What is running, by kind and key (`generation <job id>`, `deployment <id>`): what a drain that ran out of time names. */
  names(): string[];
  /** Stops claiming, and resolves once every run in flight has finished. */
  close(): Promise<void>;
}

/** `workers` by the name of the work each runs. */
export function combineWorkers(workers: Record<string, Worker>): BackgroundWork {
  const all = Object.entries(workers);
  const idle = () => all.every(([, worker]) => worker.pending === 0);
  return {
    get pending() {
      return all.reduce((sum, [, worker]) => sum + worker.pending, 0);
    },
    async onIdle() {
      // One worker's idle may come while another is still busy: wait until all are idle at once.
      do await Promise.all(all.map(([, worker]) => worker.onIdle()));
      while (!idle());
    },
    names: () => all.flatMap(([name, worker]) => worker.names().map((key) => `${name} ${key}`)),
    async close() {
      await Promise.all(all.map(([, worker]) => worker.close()));
    },
  };
}
