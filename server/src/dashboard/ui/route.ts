import { useEffect, useState } from "preact/hooks";

/**
 * The dashboard's address: `#/view/id?account=...&app=...`. Every view and every opened entity (a page, a
 * logged request, an endpoint's deliveries, a product) has one, so it can be bookmarked, shared between tabs,
 * and restored after logging in again.
 */
export interface Route {
  view: string;
  id: string;
  params: URLSearchParams;
}

const SAVED = "lp-route";

/** Reads the current hash (the Requests view when there is none). */
export function readRoute(hash = location.hash): Route {
  const raw = hash.replace(/^#\/?/, "");
  const [path, query = ""] = raw.split("?", 2);
  const [view, ...rest] = path.split("/");
  return { view: view || "requests", id: decodeURIComponent(rest.join("/")), params: new URLSearchParams(query) };
}

/** The hash of a view, an entity in it, and parameters (empty ones left out). */
export function toHash(view: string, id = "", params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => Boolean(e[1])));
  const q = query.toString();
  return `#/${view}${id ? `/${encodeURIComponent(id)}` : ""}${q ? `?${q}` : ""}`;
}

/** Changes the address: `replace` for a change of filter or choice that should not add a Back step. */
export function go(hash: string, replace = false): void {
  if (hash === location.hash) return;
  if (replace) {
    history.replaceState(null, "", hash);
    dispatchEvent(new HashChangeEvent("hashchange"));
  } else location.hash = hash;
}

/**
 * The current route, following hash changes. The address is kept in the tab's sessionStorage too: a new
 * login URL opened in this tab lands on `/_dashboard/` without a hash, and is put back where it was.
 */
export function useRoute(): Route {
  if (!location.hash && sessionStorage.getItem(SAVED)) history.replaceState(null, "", sessionStorage.getItem(SAVED));
  const [route, setRoute] = useState(() => readRoute());
  useEffect(() => {
    const on = () => {
      if (location.hash) sessionStorage.setItem(SAVED, location.hash);
      setRoute(readRoute());
    };
    on();
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}
