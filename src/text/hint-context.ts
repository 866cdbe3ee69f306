// Carries the user's state dir flags into the clawkit commands that hints and messages suggest, so they paste as is.
//
// Messages are built far from the command line (store, doctor, sessions cores) and quote a command as
// `"clawkit doctor --fix"`. One run is one command, so its context is set once, at parse (BaseCommand.init), and
// added where a message reaches the user: every error (describeError) and the hint lines of the human renderers
// (render/safe.ts hintInContext).

let context = ''

/** The flags that chose the state dir, as the user gave them (`--state-dir X`, `--profile X`, `--dev`). */
export function setHintContext(flags: {'state-dir'?: string; profile?: string; dev?: boolean}): void {
  const parts: string[] = []
  if (flags['state-dir'] !== undefined) parts.push('--state-dir', shellWord(flags['state-dir']))
  if (flags.profile !== undefined) parts.push('--profile', shellWord(flags.profile))
  if (flags.dev) parts.push('--dev')
  context = parts.join(' ')
}

/** A word a POSIX shell reads back as `value`: as is when plain, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`
}

/**
 * `text` with the context added to every quoted `"clawkit <command> ..."` it holds, except where the command already
 * names a state dir, or is one that reads none (`--help`, `help`, `autocomplete`, a command's `--help`).
 */
export function withHintContext(text: string): string {
  if (!context || !text.includes('"clawkit ')) return text
  return text.replace(/"clawkit ([^"]*)"/g, (whole, cmd: string) => {
    if (/^(--|help\b|autocomplete\b)/.test(cmd) || /(^|\s)--(state-dir|profile|dev|store-url|help)\b/.test(cmd)) return whole
    return `"clawkit ${cmd} ${context}"`
  })
}
