/**
 * Whether `text` matches `pattern`, where `*` stands for any run of characters (slashes too) and every other
 * character for itself: `/v1/accounts/*\/products*`. Greedy with one backtrack point, no regular expression,
 * so a hostile pattern costs at most `pattern.length * text.length` steps (both bounded by the caller).
 */
export function matchesGlob(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      resume = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}
