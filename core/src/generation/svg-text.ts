import { trimEndChars } from "../trim.js";
/** Characters XML 1.0 forbids, and unpaired surrogates: either would make the SVG unparseable. */
const invalidXmlChars = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escapes text for XML content and double- or single-quoted attributes. */
export function escapeXml(value: string): string {
  return value
    .replace(invalidXmlChars, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/**
 * Greedy word wrap by character count (SVG has no text flow, and measuring glyphs needs a font
 * engine; an average glyph width is close enough for headings). Words longer than a line are cut;
 * text beyond `maxLines` is dropped and the last line ends with an ellipsis.
 */
export function wrapText(text: string, maxChars: number, maxLines: number): string[] {
  // Only ASCII whitespace breaks lines: the no-break spaces inside formatted prices must hold.
  const words = text.split(/[ \t\r\n\f\v]+/).filter(Boolean);
  const lines: string[] = [];
  let current = "";
  for (const word of words.flatMap((w) => chunk(w, maxChars))) {
    const candidate = current ? `${current} ${word}` : word;
    if (Array.from(candidate).length <= maxChars) {
      current = candidate;
    } else {
      lines.push(current);
      current = word;
    }
  }
  if (current) lines.push(current);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = Array.from(kept[maxLines - 1]!);
  kept[maxLines - 1] = `${trimEndChars(last.slice(0, Math.max(1, maxChars - 1)).join(""), ",;:.", true)}…`;
  return kept;
}

/** Splits a word into pieces of at most `size` code points (never inside a surrogate pair). */
function chunk(word: string, size: number): string[] {
  const chars = Array.from(word);
  if (chars.length <= size) return [word];
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}
