// SHA-256 without paying for node:crypto at start-up: the module is loaded on the first hash (see src/store/random-id.ts).
type Crypto = typeof import('node:crypto')
let cryptoMod: Crypto | undefined

export function sha256(): import('node:crypto').Hash {
  cryptoMod ??= process.getBuiltinModule('node:crypto')
  return cryptoMod.createHash('sha256')
}
