// CSV as the exports write it (RFC 4180: CRLF lines, quoted when needed).

/**
 * One cell. A cell a spreadsheet would run as a formula (=, +, -, @, tab, CR)
 * is prefixed with a quote: exports hold text that people chose (emails,
 * names, reasons, rationales).
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A whole document: the header line, then one line per row. */
export function csvDocument(columns: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [columns.join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\r\n') + '\r\n';
}
