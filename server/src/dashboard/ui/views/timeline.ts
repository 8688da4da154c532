import { useEffect, useState } from "preact/hooks";
import { html, when } from "../html.js";

/** A duration for people: 850 ms, 2.4 s, 3 min 5 s. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "-";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The time now, every 250 ms while `running` (the elapsed time of a running step moves on its own). */
function useNow(running: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

/** A run (job or deployment) as the timeline draws it. */
export interface Run {
  steps: string[];
  current: string | null;
  status: string;
  /** When each step began, by name (recorded by the server as the run moved on). */
  stepTimes: Record<string, string>;
  startedAt: string;
  /** When the run settled (completed, deployed, or failed); null while it runs. */
  endedAt: string | null;
}

/**
 * A run as an ordered list of its steps: done (with how long each took), current (with its time so far) or
 * failed, or still to come. Durations come from the times the server recorded as each step began.
 */
export function Timeline({ label, run }: { label: string; run: Run }) {
  const failed = run.status === "failed";
  const finished = run.status === "succeeded" || run.status === "completed";
  const running = !failed && !finished;
  const now = useNow(running);
  const index = finished ? run.steps.length : Math.max(0, run.steps.indexOf(run.current ?? run.steps[0]));
  const startOf = (i: number) => run.stepTimes[run.steps[i]] ?? (i === 0 ? run.startedAt : undefined);
  const spent = (i: number) => {
    const start = startOf(i);
    const end = i + 1 < run.steps.length && i < index ? startOf(i + 1) : (run.endedAt ?? undefined);
    if (!start) return null;
    return (end ? Date.parse(end) : now) - Date.parse(start);
  };
  const total = (run.endedAt ? Date.parse(run.endedAt) : now) - Date.parse(run.startedAt);
  return html`
    <ol class="timeline" aria-label=${label}>
      ${run.steps.map((step, i) => {
        const state = i < index ? "done" : i === index ? (failed ? "failed" : "current") : "todo";
        const ms = state === "todo" ? null : spent(i);
        return html`<li class=${state} data-step=${step}><span class="dot" aria-hidden="true"></span>${step.replace(/_/g, " ")}
          ${ms !== null && html`<span class="took">${duration(ms)}</span>`}<span class="sr-only"> (${state})</span></li>`;
      })}
      <li class=${finished ? "done" : failed ? "failed" : "todo"}><span class="dot" aria-hidden="true"></span>${run.status}</li>
    </ol>
    <p class="small">started ${when(run.startedAt)} · ${running ? "running for" : "took"} ${duration(total)}${run.endedAt ? ` · ended ${when(run.endedAt)}` : ""}</p>`;
}
