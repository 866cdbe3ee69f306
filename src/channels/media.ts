// Resolve --media into a URL or a readable local file with its name, size and type.
import fs from 'node:fs'
import path from 'node:path'

import {UsageError} from '../errors.js'
import {readRegularFileSync} from '../os/safe-open.js'
import type {MediaRef} from './types.js'

const TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.zip': 'application/zip',
}
const IMAGE_EXT = new Set(['.jpg', '.jpeg', '.png', '.webp'])
/** Bot APIs reject uploads far below this; refuse early instead of streaming a huge file into memory. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024

function fileNameOf(p: string): string {
  return path.basename(p) || 'file'
}

export function resolveMedia(input: string, cwd = process.cwd()): MediaRef {
  const raw = input.trim()
  if (!raw) throw new UsageError('--media is empty', 'E_BAD_MEDIA')
  if (/^https?:\/\//i.test(raw)) {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw new UsageError(`--media is not a valid URL: ${raw.slice(0, 200)}`, 'E_BAD_MEDIA')
    }
    let name = fileNameOf(url.pathname)
    try {
      name = decodeURIComponent(name)
    } catch {}
    const ext = path.extname(name).toLowerCase()
    return {source: raw, kind: 'url', fileName: name, isImage: IMAGE_EXT.has(ext), contentType: TYPES[ext] ?? 'application/octet-stream'}
  }
  const file = path.resolve(cwd, raw.startsWith('file://') ? new URL(raw).pathname : raw)
  let st: fs.Stats
  try {
    st = fs.statSync(file)
  } catch {
    throw new UsageError(`--media file not found: ${file}`, 'E_BAD_MEDIA', ['pass an existing file path or an http(s) URL'])
  }
  if (!st.isFile()) throw new UsageError(`--media is not a regular file: ${file}`, 'E_BAD_MEDIA')
  if (st.size > MAX_UPLOAD_BYTES) throw new UsageError(`--media file is too large (${st.size} bytes; at most ${MAX_UPLOAD_BYTES})`, 'E_BAD_MEDIA')
  const ext = path.extname(file).toLowerCase()
  return {source: raw, kind: 'file', path: file, fileName: fileNameOf(file), size: st.size, isImage: IMAGE_EXT.has(ext), contentType: TYPES[ext] ?? 'application/octet-stream'}
}

export function readMedia(m: MediaRef): Blob {
  // Checked again on the descriptor: the file may have been replaced by a FIFO or device since it was described.
  return new Blob([readRegularFileSync(m.path!, {what: '--media file', maxBytes: MAX_UPLOAD_BYTES})], {type: m.contentType})
}

export function describeFile(m: MediaRef): string {
  return `<file ${m.fileName}, ${m.size} bytes>`
}
