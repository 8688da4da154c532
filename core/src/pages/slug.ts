import { trimEndChars, trimStartChars } from "../trim.js";
/** `Café Crème — 2 kg!` → `cafe-creme-2-kg`; never empty, at most 60 characters. */
export function toSlug(title: string): string {
  const dashed = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-");
  const slug = trimEndChars(trimStartChars(trimEndChars(dashed, "-"), "-").slice(0, 60), "-");
  return slug || "page";
}

/** The first of `base`, `base-2`, `base-3`, ... that `taken` does not hold. */
export function toUniqueSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}
