import { useState } from "preact/hooks";
import { errorText, upload, type Answer } from "../api.js";
import { html } from "../html.js";
import type { DashState } from "../app.js";
import type { Outcome } from "./outcome.js";

/** The API's bounds on uploaded images (from /_dashboard/api/state). */
export type UploadLimits = DashState["uploads"];

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
const names = (types: string[]) => types.map((t) => t.replace(/^image\//, "").replace("+xml", "").toUpperCase()).join(", ");

/** What the API said, with the first issues of a validation error (which file, which rule). */
function refusal(a: Answer): string {
  const issues: { path?: string; message?: string }[] = a.json?.error?.details?.issues ?? [];
  const detail = issues.slice(0, 3).map((i) => `${i.path ? `${i.path}: ` : ""}${i.message}`).join("; ");
  return detail ? `${errorText(a)} (${detail})` : errorText(a);
}

/**
 * Checks chosen files against the API's bounds before sending them: a clear message at once instead of a
 * long upload the API then refuses. The API still checks every file's bytes (a renamed file is caught there).
 */
export function checkFiles(files: File[], limits: UploadLimits, already: number): string | null {
  if (files.length === 0) return "Choose one or more image files.";
  if (already + files.length > limits.max_files) return `A product holds at most ${limits.max_files} images; it has ${already}.`;
  const big = files.find((f) => f.size > limits.max_bytes);
  if (big) return `${big.name} is ${mib(big.size)}; the API takes images up to ${mib(limits.max_bytes)}.`;
  const odd = files.find((f) => f.type !== "" && !limits.types.includes(f.type));
  if (odd) return `${odd.name} is ${odd.type}; the API takes ${names(limits.types)}.`;
  return null;
}

/**
 * Uploads image files to a product (`PATCH` multipart through the dashboard's relay) and hands the updated
 * product to `onUploaded`; the API's refusals are shown as errors.
 */
export function ImageUpload({ path, limits, already, onUploaded }: { path: string; limits: UploadLimits; already: number; onUploaded: (product: any) => void }) {
  const [message, setMessage] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const files = [...(form.querySelector<HTMLInputElement>('input[type="file"]')?.files ?? [])];
    const wrong = checkFiles(files, limits, already);
    if (wrong) return setMessage({ text: `Not uploaded: ${wrong}`, bad: true });
    const body = new FormData();
    for (const file of files) body.append("images", file, file.name);
    setBusy(true);
    setMessage({ text: `Uploading ${files.length} file${files.length === 1 ? "" : "s"}...`, bad: false });
    const a = await upload("PATCH", path, body);
    setBusy(false);
    if (!a.ok) return setMessage({ text: `Not uploaded: ${refusal(a)}`, bad: true });
    form.reset();
    setMessage({ text: `Uploaded ${files.map((f) => f.name).join(", ")}.`, bad: false });
    onUploaded(a.json.data);
  }
  return html`<form class="form" onSubmit=${submit} aria-labelledby="upload-title">
    <h3 id="upload-title">Upload images</h3>
    <label>Image files <input type="file" name="images" multiple accept=${limits.types.join(",")} /></label>
    <p class="small">${names(limits.types)}; up to ${mib(limits.max_bytes)} each, ${limits.max_files} images per product.</p>
    <button type="submit" disabled=${busy}>Upload</button>
    ${message && html`<p role=${message.bad ? "alert" : "status"} class=${message.bad ? "error-text" : ""}>${message.text}</p>`}
  </form>`;
}
