import { serverUnreachable, sessionEnded } from "./live.js";

/** The session's CSRF token, put in the page by the server; sent back on every change. */
const csrf = document.querySelector('meta[name="lp-csrf"]')?.getAttribute("content") ?? "";

/** The `Lp-Simulate` mode the fault-injection panel chose for the dashboard's own calls ("" for none). */
let simulate = sessionStorage.getItem("lp-simulate") ?? "";
/** Chooses the mode; kept in the tab's sessionStorage, so a reload keeps it (and the header shows it). */
export const setSimulate = (mode: string) => {
  simulate = mode;
  if (mode) sessionStorage.setItem("lp-simulate", mode);
  else sessionStorage.removeItem("lp-simulate");
  dispatchEvent(new Event("lp-simulate"));
};
export const currentSimulate = () => simulate;

/** What an API call answered. */
export interface Answer<T = any> {
  ok: boolean;
  status: number;
  json: T;
}

async function send(path: string, init: RequestInit = {}): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(`/_dashboard/api${path}`, {
      ...init,
      credentials: "same-origin",
      // A FormData body gets its multipart type (with the boundary) from the browser.
      headers: { "x-csrf-token": csrf, ...(typeof init.body === "string" ? { "content-type": "application/json" } : {}) },
    });
  } catch {
    serverUnreachable();
    return { ok: false, status: 0, json: { error: { code: "unreachable", message: "The server did not answer (stopped or restarting)." } } };
  }
  // The dashboard's own refusal of a missing session (a relayed API 401 never carries this header).
  if (res.status === 401 && res.headers.get("lp-dashboard-session") === "none") sessionEnded();
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = { raw: text };
  }
  return { ok: res.ok, status: res.status, json };
}

/** The dashboard's own API (state, request log, faults). */
export const dash = {
  get: (path: string) => send(path),
  post: (path: string, body: unknown) => send(path, { method: "POST", body: JSON.stringify(body) }),
};

/**
 * A call to the server's public or admin API, relayed in-process by the dashboard as the path's account
 * (or `appId` on the developer plane). The admin key never reaches the browser.
 */
export function call(method: string, path: string, options: { body?: unknown; appId?: string; simulate?: boolean } = {}): Promise<Answer> {
  const payload: Record<string, unknown> = { method, path };
  if (options.body !== undefined) payload.body = options.body;
  if (options.appId) payload.app_id = options.appId;
  if (options.simulate && simulate) payload.simulate = simulate;
  return dash.post("/call", payload);
}

/**
 * Image files sent as multipart (`images` parts) to the products API through the dashboard's upload relay:
 * `PATCH` adds them to product `path`, `POST` creates one. The API bounds and checks them.
 */
export function upload(method: "POST" | "PATCH", path: string, form: FormData): Promise<Answer> {
  return send(`/upload?${new URLSearchParams({ method, path })}`, { method: "POST", body: form });
}

/** The message of a failed answer, for display. */
export function errorText(answer: Answer): string {
  return answer.json?.error?.message ?? `HTTP ${answer.status}`;
}
