// Pure text helpers shared by the server, the agent and the browser.

/** Caps a field at `max` characters, keeping head and tail with a note (messages, stack traces). */
export function capChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = Math.floor(max * 0.7);
  let tail = max - head;
  // never split a surrogate pair: the halves would become U+FFFD
  if (/[\uD800-\uDBFF]/.test(text.charAt(head - 1))) head--;
  if (/[\uDC00-\uDFFF]/.test(text.charAt(text.length - tail))) tail--;
  return `${text.slice(0, head)}\n… [${text.length - head - tail} characters cut] …\n${text.slice(text.length - tail)}`;
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A label wrapped at spaces onto at most `maxLines` lines of at most `width`
 * characters (a chart's category name under its bar); what does not fit is
 * cut with "…" on the last line, so no line is ever wider than `width`.
 */
export function wrapLabel(text: string, width: number, maxLines: number): string[] {
  const cut = (line: string) => (line.length <= width ? line : `${line.slice(0, Math.max(1, width - 1)).trimEnd()}…`);
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return [''];
  const lines: string[] = [];
  let i = 0;
  while (i < words.length && lines.length < maxLines - 1) {
    let line = words[i++]!;
    while (i < words.length && line.length + 1 + words[i]!.length <= width) line += ` ${words[i++]}`;
    lines.push(cut(line));
  }
  if (i < words.length) lines.push(cut(words.slice(i).join(' ')));
  return lines;
}

/**
 * A diff nobody may apply (a dropped, rejected or stale fix) as text that
 * keeps every line readable and none at the start of a line: a script that
 * looks for "diff --git" in a terminal or a comment and applies what follows
 * never finds it.
 */
export function inertDiff(diff: string): string {
  return diff
    .trimEnd()
    .split('\n')
    .map((l) => `    | ${l}`)
    .join('\n');
}
