// "Did you mean" for mistyped commands and flags: the closest known name, or nothing when none is close.

/** Edit distance counting an adjacent transposition ("lsit" for "list") as one edit, as typing slips make them. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = []
  for (let i = 0; i <= a.length; i++) {
    rows.push([i])
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[i][j] = j
        continue
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1)
      rows[i][j] = d
    }
  }
  return rows[a.length][b.length]
}

/**
 * The candidate `input` most likely meant: the only one it is a prefix of, else the nearest within a third of its
 * length (at least one edit, at most three). A tie between two equally near names suggests neither.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const prefixed = candidates.filter((c) => c.startsWith(input))
  if (input.length >= 2 && prefixed.length === 1) return prefixed[0]
  const limit = Math.min(3, Math.max(1, Math.floor(input.length / 3)))
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  let tie = false
  for (const c of candidates) {
    const d = editDistance(input, c)
    if (d < bestDistance) {
      best = c
      bestDistance = d
      tie = false
    } else if (d === bestDistance && c !== best) tie = true
  }
  return bestDistance <= limit && !tie ? best : undefined
}
