import htm from "htm";
import { h } from "preact";

/** Tagged templates for Preact: no build-time JSX. */
export const html = htm.bind(h);

/** A date as local time, or a dash. */
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "-");
