// The root cause, first thing a reviewer reads. The HTML was written by a
// model: sanitised when the fix was saved and again by the server on its way
// to this page (lib/fixes/views.ts toFixView). This is the one place the
// dashboard renders HTML it did not write.
export function FixSummary({ html }: { html: string }) {
  if (!html.trim())
    return (
      <p className="muted fix-summary" data-testid="fix-summary">
        No summary was written for this fix.
      </p>
    );
  return <div className="fix-summary" data-testid="fix-summary" dangerouslySetInnerHTML={{ __html: html }} />;
}
