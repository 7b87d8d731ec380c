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
