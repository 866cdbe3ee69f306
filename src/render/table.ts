// Borderless tables on cli-table3 (loaded lazily, human output only), laid out like OpenClaw's padEnd columns.
import {importCliTable} from '../lazy.js'
import {stripAnsi} from '../text/ansi.js'
import type {Style} from './color.js'
import {paint} from './color.js'

export interface Column {
  header: string
  /** Minimum width as in OpenClaw's fixed columns. */
  width?: number
}

export async function renderTable(columns: Column[], rows: string[][], color: boolean, headStyle: Style = 'bold'): Promise<string> {
  const {default: Table} = await importCliTable()
  const blank = {top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: ' '}
  // cli-table3 colours headers and borders even when piped; styles are passed explicitly instead.
  const table = new Table({chars: blank, style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true}})
  table.push(columns.map((c) => paint(color, headStyle, c.width ? c.header.padEnd(c.width) : c.header)))
  for (const r of rows) table.push(r.map((cell, i) => (columns[i].width ? padVisible(cell, columns[i].width!) : cell)))
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
}

function padVisible(s: string, width: number): string {
  const len = stripAnsi(s).length
  return len >= width ? s : s + ' '.repeat(width - len)
}
