import { useState } from "preact/hooks";
import { html } from "./html.js";
import type { Connection } from "./live.js";

/** The token of a pasted login URL (or a bare token), or null. */
function tokenOf(text: string): string | null {
  const value = text.trim();
  if (/^[\w-]{20,200}$/.test(value)) return value;
  try {
    const url = new URL(value, location.origin);
    const token = url.searchParams.get("token");
    return url.pathname === "/_dashboard/login" && token && /^[\w-]{1,200}$/.test(token) ? token : null;
  } catch {
    return null;
  }
}

/**
 * What the tab says when it lost the server: a stop (it reconnects by itself when the server answers again)
 * or the end of the session, with a field for a new login URL that comes back to the same view.
 */
export function SessionNotice({ connection }: { connection: Connection }) {
  const [error, setError] = useState("");
  if (connection === "stopped") {
    return html`<div class="notice warn" role="alert">
      <strong>The server stopped or cannot be reached.</strong> What you see may be out of date; the dashboard
      reconnects by itself when <code>lp serve</code> answers again.
    </div>`;
  }
  if (connection !== "ended") return null;
  const submit = (e: Event) => {
    e.preventDefault();
    const token = tokenOf(String(new FormData(e.target as HTMLFormElement).get("login") ?? ""));
    if (!token) return setError("That is not a dashboard login URL (it looks like /_dashboard/login?token=...).");
    // The 303 after login keeps this fragment, so the browser lands on the same view.
    location.assign(`/_dashboard/login?token=${encodeURIComponent(token)}${location.hash}`);
  };
  return html`<div class="notice bad" role="alert">
    <p><strong>Your dashboard session ended: log in again.</strong> The server restarted, the session expired,
      or this process does not know it. Nothing you saw was deleted.</p>
    <p>Run <code>lp dashboard</code> and paste the URL it prints here (or open it in this tab): you come back to this view.</p>
    <form class="inline-form" onSubmit=${submit}>
      <label>New login URL <input name="login" autocomplete="off" spellcheck="false" required /></label>
      <button type="submit">Log in</button>
    </form>
    ${error && html`<p>${error}</p>`}
  </div>`;
}
