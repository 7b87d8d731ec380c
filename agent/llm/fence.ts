// How repository text is shown to the model. Everything that comes from the
// repository or from the people around it is untrusted: it is placed inside a
// fence whose delimiter carries a per-run random nonce, so text in the
// repository cannot close the fence (it cannot know the nonce). Long text is
// cut with a note of what was left out; code is shown with its line numbers.
import { randomBytes } from 'node:crypto';

export interface Fence {
  readonly nonce: string;
  /** wraps repository text as untrusted data; `label` says what it is (ours, not the repository's) */
  wrap(label: string, text: string): string;
}

export function createFence(nonce: string = randomBytes(8).toString('hex')): Fence {
  const begin = (label: string) => `<<<UNTRUSTED:${nonce} ${label}>>>`;
  const end = `<<<END UNTRUSTED:${nonce}>>>`;
  return {
    nonce,
    wrap(label, text) {
      // The nonce is secret from the repository, but a model could echo it
      // into a file it writes and read it back later: neutralise it anyway.
      const safe = text.replaceAll(nonce, '[fence-id]');
      const safeLabel = label.replace(/[\r\n>]/g, ' ').slice(0, 200);
      return `${begin(safeLabel)}\n${safe}\n${end}`;
    },
  };
}

/** Cuts long text, keeping the head or the tail, with a note of what was elided and how to narrow. */
export function cutText(text: string, { maxChars, keep = 'head', hint }: { maxChars: number; keep?: 'head' | 'tail'; hint: string }): string {
  if (text.length <= maxChars) return text;
  const kept = keep === 'head' ? text.slice(0, maxChars) : text.slice(text.length - maxChars);
  const elided = keep === 'head' ? text.slice(maxChars) : text.slice(0, text.length - maxChars);
  const lines = elided.split('\n').length - 1;
  const note = `[… ${elided.length} characters (${lines} lines) elided from the ${keep === 'head' ? 'end' : 'start'}; ${hint}]`;
  return keep === 'head' ? `${kept}\n${note}` : `${note}\n${kept}`;
}

/** Code with its line numbers, as the prompts and the read_file tool show it. */
export function withLineNumbers(text: string, firstLine: number): string {
  const lines = text.split('\n');
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((line, i) => `${String(firstLine + i).padStart(width)}│ ${line}`).join('\n');
}
