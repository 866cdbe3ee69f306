// Terminal-safe text: data from files (keys, ids, transcript text, error details) is printed with its control
// characters escaped, so a hostile message or file can neither break the layout nor send escape sequences.

// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001F\u007F-\u009F]/g
// eslint-disable-next-line no-control-regex
const CONTROL_EXCEPT_NEWLINE_TAB_RE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g

function escapeChar(c: string): string {
  if (c === '\n') return '\\n'
  if (c === '\t') return '\\t'
  if (c === '\r') return '\\r'
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/** One line: every control character (newlines included) escaped. */
export function printable(s: string): string {
  return s.replace(CONTROL_RE, escapeChar)
}

/** Multi-line text (messages): newlines and tabs kept, every other control character escaped. */
export function printableLines(s: string): string {
  return s.replace(CONTROL_EXCEPT_NEWLINE_TAB_RE, escapeChar)
}
