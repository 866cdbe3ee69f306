// SGR colour sequences (`ESC [ … m`), the only escapes clawkit itself writes (render/color.ts) and oclif puts in
// its parse errors.

/** The text without its colour sequences: for measuring a painted cell, or turning oclif's message into one line. */
export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001B\[[0-9;]*m/g, '')
}
