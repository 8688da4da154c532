import { escapeHtml } from "./escape.js";

/** The HTML5 skeleton shared by the page, the checkout confirmation and the not-found page. */
export function renderDocument(parts: { lang: string; head: string; body: string }): string {
  return `<!doctype html>
<html lang="${escapeHtml(parts.lang)}">
<head>
${parts.head}
</head>
<body>
${parts.body}
</body>
</html>
`;
}
