// Byte sizes for messages: the store's own errors name them, and status prints them (through sessions/format.ts).

/** 1024-based, one decimal below 100 unless whole: `512 B`, `1.5 KiB`, `16 MiB`, `600 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${Number.isInteger(v) || v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[i]}`
}
