import { html, when } from "../html.js";

/**
 * A run as an ordered list of its known steps: done, current (or failed), or still to come. The API keeps
 * the current step and the run's times, so those are what each step shows.
 */
export function Timeline({ label, steps, current, status, times }: { label: string; steps: string[]; current: string | null; status: string; times: [string, string | null][] }) {
  const failed = status === "failed";
  const finished = status === "succeeded" || status === "completed";
  const index = finished ? steps.length : Math.max(0, steps.indexOf(current ?? steps[0]));
  return html`
    <ol class="timeline" aria-label=${label}>
      ${steps.map((step, i) => {
        const state = i < index ? "done" : i === index ? (failed ? "failed" : "current") : "todo";
        return html`<li class=${state}><span class="dot" aria-hidden="true"></span>${step.replace(/_/g, " ")} <span class="sr-only">(${state})</span></li>`;
      })}
      <li class=${finished ? "done" : failed ? "failed" : "todo"}><span class="dot" aria-hidden="true"></span>${status}</li>
    </ol>
    <p class="small">${times.map(([name, at]) => `${name} ${when(at)}`).join(" · ")}</p>`;
}
