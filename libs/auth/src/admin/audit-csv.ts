import type { AuditEntry } from './admin-audit.service.js';

/**
 * The first characters with which a spreadsheet reads a cell as a formula (or, tab and carriage
 * return, as the start of one): an e-mail or a detail anyone can choose must not run as one.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A cell holding one of these is quoted (RFC 4180 §2). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell: empty for null; text a spreadsheet would take for a formula prefixed with `'`
 * (which it shows as text); quoted, with its quotes doubled, when it holds a quote, a comma or a
 * line break.
 */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, ended by CRLF as RFC 4180 has it. */
export const csvRecord = (cells: (string | null)[]): string => `${cells.map(csvCell).join(',')}\r\n`;

export const AUDIT_CSV_HEADER = csvRecord(['id', 'at', 'actorId', 'actorEmail', 'action', 'targetUserId', 'targetEmail', 'detail', 'actorAddress']);

/** An entry as a record under `AUDIT_CSV_HEADER`: the time in ISO 8601 (UTC), the detail as JSON. */
export function auditCsvRow(entry: AuditEntry): string {
  return csvRecord([
    entry.id,
    entry.at.toISOString(),
    entry.actorId,
    entry.actorEmail,
    entry.action,
    entry.targetUserId,
    entry.targetEmail,
    entry.detail === null ? null : JSON.stringify(entry.detail),
    // Last: a spreadsheet or a script reading the earlier columns by position reads them as before.
    entry.actorAddress,
  ]);
}
