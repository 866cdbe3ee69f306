// Whether this run is `npm run test:deep` (CLAWKIT_TEST_DEEP=1): the whole matrices of the kill-point suites and the
// scale tests, which npm test runs a part of (docs/development.md, "Tests and checks").
export const DEEP = process.env.CLAWKIT_TEST_DEEP === '1'

/** All the cases under test:deep; else only the named ones (npm test's part, named so that a reader sees which). */
export function deepOr<T extends {name: string}>(cases: readonly T[], smoke: readonly string[]): readonly T[] {
  if (DEEP) return cases
  const picked = cases.filter((c) => smoke.includes(c.name))
  if (picked.length !== smoke.length) throw new Error(`npm test's cases ${smoke.join(', ')}: not all among ${cases.map((c) => c.name).join(', ')}`)
  return picked
}
