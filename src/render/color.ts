// Minimal ANSI styling that honours NO_COLOR / FORCE_COLOR and only colours a TTY.

export function colorEnabled(stream: NodeJS.WriteStream = process.stdout): boolean {
  const force = process.env.FORCE_COLOR
  if (force !== undefined && force !== '' && force !== '0') return true
  if (process.env.NO_COLOR !== undefined) return false
  if (force === '0') return false
  return Boolean(stream.isTTY) && process.env.TERM !== 'dumb'
}

const CODES = {bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], gray: [90, 39]} as const
export type Style = keyof typeof CODES

export function paint(enabled: boolean, style: Style, text: string): string {
  if (!enabled) return text
  const [open, close] = CODES[style]
  return `\u001B[${open}m${text}\u001B[${close}m`
}
