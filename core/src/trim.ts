const SPACE = /\s/;

/**
 * `value` without the trailing characters listed in `chars` (and trailing white space too with `space`).
 * A loop from the end rather than `replace(/[...]+$/, "")`: that pattern is tried from every position
 * of a long run that does not reach the end, which is quadratic in the run's length.
 */
export function trimEndChars(value: string, chars: string, space = false): string {
  let end = value.length;
  while (end > 0 && isStripped(value[end - 1]!, chars, space)) end--;
  return value.slice(0, end);
}

/** `value` without the leading characters listed in `chars` (and leading white space too with `space`). */
export function trimStartChars(value: string, chars: string, space = false): string {
  let start = 0;
  while (start < value.length && isStripped(value[start]!, chars, space)) start++;
  return value.slice(start);
}

function isStripped(char: string, chars: string, space: boolean): boolean {
  return chars.includes(char) || (space && SPACE.test(char));
}
