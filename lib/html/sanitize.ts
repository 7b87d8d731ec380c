import sanitize from 'sanitize-html';

// Model-written HTML (fix summaries) is untrusted: it may echo text from the
// repository, which may carry markup written to attack the dashboard. Only a
// small formatting vocabulary survives; everything else is dropped (script,
// style and iframe-like elements with their content) or unwrapped to text.

const ALLOWED_TAGS = ['p', 'code', 'pre', 'em', 'strong', 'ul', 'ol', 'li', 'a', 'br'];

// Elements whose content is not prose and must vanish with them. sanitize-html
// already drops script/style/textarea/option/noscript content; svg and math
// can carry their own scripts and styles, iframes and objects can carry
// fallback markup.
const DROP_WITH_CONTENT = ['script', 'style', 'textarea', 'option', 'noscript', 'svg', 'math', 'iframe', 'object', 'embed', 'template', 'title', 'head'];

const OPTIONS: sanitize.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: { a: ['href', 'rel'] },
  allowedSchemes: ['http', 'https'],
  allowedSchemesByTag: {},
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: DROP_WITH_CONTENT,
  transformTags: {
    // rel is always ours, never the author's (no "opener")
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...(attribs.href ? { href: attribs.href } : {}), rel: 'noopener nofollow' },
    }),
  },
};

/** Allow-list sanitiser for HTML written by a model or built from repository text. */
export function sanitizeHtml(html: string): string {
  return sanitize(html, OPTIONS);
}

/** Escapes text for inclusion in HTML (element content or quoted attribute). */
export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}
