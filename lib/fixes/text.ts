import { sanitizeHtml } from '../html/sanitize';

// A fix's summary HTML as plain text for a commit message or a terminal:
// inline elements join their neighbours without extra spaces, block elements
// end lines, entities are decoded. The HTML is sanitised first (model-written).

export function summaryToText(html: string): string {
  return sanitizeHtml(html)
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|li|pre|ul|ol)>/gi, '\n')
    .replace(/<li>/gi, '- ')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}
