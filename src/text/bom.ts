// The UTF-8 byte order mark some editors (Notepad, PowerShell's Out-File) put in front of a file: JSON.parse rejects
// it, OpenClaw's JSON5 config loader reads past it, and OpenClaw 2026.4.27 reads a BOM-led sessions.json as empty.

/** EF BB BF, the mark as bytes. */
export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** Whether `buf` (a file's first bytes) starts with the mark. */
export function startsWithBom(buf: Uint8Array): boolean {
  return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf
}

/** The text without a leading mark (U+FEFF, what the mark decodes to). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}
