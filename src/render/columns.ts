// OpenClaw's `sessions` layout: fixed padEnd columns joined by one space, each line right-trimmed. Long cells push
// the row wider rather than being cut, exactly as OpenClaw prints them. Linear in rows (10k rows in milliseconds),
// which is why `sessions list` does not go through cli-table3 (about 1 ms per row; 14 s for 10k sessions).
import {paint, type Style} from './color.js'
import {printable} from './safe.js'

export interface FixedColumn {
  header: string
  /** padEnd width; the last column usually has none. */
  width?: number
}

export interface StyledCell {
  text: string
  style?: Style
}

export function renderColumns(columns: FixedColumn[], rows: (string | StyledCell)[][], color: boolean): string {
  const line = (cells: (string | StyledCell)[], headStyle?: Style) =>
    cells
      .map((cell, i) => {
        const raw = typeof cell === 'string' ? {text: cell, style: headStyle} : {text: cell.text, style: cell.style ?? headStyle}
        // Cells carry keys, models and flags straight from sessions.json.
        const {text, style} = {text: printable(raw.text), style: raw.style}
        const width = columns[i]?.width
        const padded = width ? text.padEnd(width) : text
        // Colour only the text, never the padding, so trimming and alignment stay exact.
        return style ? paint(color, style, text) + padded.slice(text.length) : padded
      })
      .join(' ')
      .trimEnd()
  const out = [line(columns.map((c) => c.header), 'bold')]
  for (const r of rows) out.push(line(r))
  return out.join('\n')
}
