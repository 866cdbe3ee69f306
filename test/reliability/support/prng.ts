// Seeded PRNG (mulberry32) so every reliability run can be replayed from its seed.

export class Rng {
  private s: number

  constructor(readonly seed: number) {
    this.s = seed >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0
    let t = this.s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }

  /** Pick by weight. */
  weighted<T extends {weight: number}>(items: readonly T[]): T {
    const total = items.reduce((s, i) => s + i.weight, 0)
    let r = this.next() * total
    for (const i of items) {
      r -= i.weight
      if (r < 0) return i
    }
    return items[items.length - 1]
  }
}

/** The seed from the environment (CLAWKIT_SEED), else a fixed default so CI runs are reproducible. */
export function seedFromEnv(fallback: number): number {
  const raw = process.env.CLAWKIT_SEED
  return raw && /^\d+$/.test(raw) ? Number(raw) : fallback
}

export function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name]
  return raw && /^\d+$/.test(raw) ? Number(raw) : fallback
}
