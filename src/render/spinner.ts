// The one place commands get an ora spinner: only on a terminal that reports its width, and loaded lazily.
import type {Ora} from 'ora'

import {importOra} from '../lazy.js'

/**
 * A stderr terminal that reports 0 columns (`script`, some CI pseudo-terminals, `docker run -t` before a resize)
 * makes ora 9 count Infinity lines to clear and loop forever, so those get no spinner, like a pipe.
 */
export function spinnerAllowed(stream: NodeJS.WriteStream = process.stderr): boolean {
  return Boolean(stream.isTTY) && (stream.columns ?? 0) > 0
}

/** An ora spinner on stderr (not started), or undefined where spinnerAllowed says no. ora (~50 ms) is imported here. */
export async function createSpinner(text: string, stream: NodeJS.WriteStream = process.stderr): Promise<Ora | undefined> {
  if (!spinnerAllowed(stream)) return undefined
  const {default: ora} = await importOra()
  return ora({text, stream})
}
