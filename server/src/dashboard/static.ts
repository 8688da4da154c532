import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

// Through getBuiltinModule: the npm build (tsup) drops the `node:` of static imports, and "sea" has no other name.
const { getAsset, isSea } = process.getBuiltinModule("node:sea");

/** What the UI build writes next to its files: the hashed names of the entry's script and style. */
interface Manifest {
  js: string;
  css: string;
}

/** The built UI: its manifest's text, and a reader of one of its files by name (null when it has none of that name). */
interface Ui {
  manifest: string;
  read(name: string): Promise<Uint8Array<ArrayBuffer> | null>;
}

/**
 * Where the built UI lives: `dist/dashboard-ui` beside the built server, the server's dist when run from
 * sources, or the assets of the single executable (`dashboard-ui/<name>`, put there by `npm run build:exe`).
 */
function findUi(): Ui | null {
  if (isSea()) {
    const manifest = seaAsset("dashboard-ui/manifest.json");
    return manifest ? { manifest: new TextDecoder().decode(manifest), read: (name) => Promise.resolve(seaAsset(`dashboard-ui/${name}`)) } : null;
  }
  for (const relative of ["./dashboard-ui/", "../dashboard-ui/", "../../dist/dashboard-ui/"]) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${dir}manifest.json`)) return { manifest: readFileSync(`${dir}manifest.json`, "utf8"), read: (name) => readFile(`${dir}${name}`).catch(() => null) };
  }
  return null;
}

function seaAsset(key: string): Uint8Array<ArrayBuffer> | null {
  try {
    return new Uint8Array(getAsset(key));
  } catch {
    // getAsset throws for a key the executable does not hold.
    return null;
  }
}

const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8", map: "application/json" };
/** The dashboard's icon: "lp" on the accent blue, readable at 16 px. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><text x="16" y="22" font-family="system-ui,sans-serif" font-size="17" font-weight="700" text-anchor="middle" fill="#fff">lp</text></svg>`;

/** Hashed file names only: nothing else in the folder can be asked for. */
const ASSET_NAME = /^[A-Za-z0-9_-]+-[A-Z0-9]{8}\.(js|css|map|js\.map|css\.map)$/;

/** The built UI, read once on the first dashboard request. */
export function createStaticFiles() {
  const ui = findUi();
  const manifest: Manifest | null = ui ? (JSON.parse(ui.manifest) as Manifest) : null;

  return {
    built: manifest !== null,
    /** The single page, with the session's CSRF token in a meta tag for the script to send back. */
    index(csrf: string): Response {
      if (!manifest) return new Response("The dashboard is not built; run `npm run build`.", { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } });
      const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="lp-csrf" content="${csrf}">
<meta name="color-scheme" content="light dark">
<title>lp dashboard</title>
<link rel="icon" href="/_dashboard/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/_dashboard/assets/${manifest.css}">
<script type="module" src="/_dashboard/assets/${manifest.js}"></script>
</head>
<body><div id="app"><p>Loading the dashboard...</p></div></body>
</html>
`;
      return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
    /** The tab's icon: a small SVG drawn here, so it needs no build and no file. */
    favicon(): Response {
      return new Response(FAVICON, { headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" } });
    },
    /** A hashed asset, cached for a year: a new build has new names. */
    async asset(name: string): Promise<Response | null> {
      if (!ui || !ASSET_NAME.test(name)) return null;
      const body = await ui.read(name);
      if (!body) return null;
      const ext = name.endsWith(".map") ? "map" : (name.split(".").pop() ?? "");
      return new Response(body, {
        headers: { "content-type": TYPES[ext] ?? "application/octet-stream", "cache-control": "public, max-age=31536000, immutable" },
      });
    },
  };
}
