// Test support: validate a command's --json output against its committed schema, and record which were checked.
import fs from 'node:fs'

import {Ajv, type ValidateFunction} from 'ajv'
import {expect} from 'vitest'

import {schemaFile} from '../../scripts/schemas.js'
import {json, type RunResult} from './cli.js'
import type {ErrorEnvelope} from '../../src/error-report.js'

// allowUnionTypes: `number | null` is one `type: [...]`; strict otherwise, so a keyword Ajv does not know fails here.
export const ajv = new Ajv({strict: true, allowUnionTypes: true, allErrors: true})
const validators = new Map<string, ValidateFunction>()
export function validator(name: string): ValidateFunction {
  let v = validators.get(name)
  if (!v) {
    v = ajv.compile(JSON.parse(fs.readFileSync(schemaFile(name), 'utf8')) as object)
    validators.set(name, v)
  }
  return v
}

/** Which schema each real document was checked against, and whether it was a success or an error envelope. */
export const checked = new Map<string, Set<'ok' | 'error'>>()

/** stdout must be one document valid against schemas/<name>.schema.json; it is then recorded as checked for `schema`. */
export function validDoc(r: RunResult, schema: string, name: string): unknown {
  const doc: unknown = json(r)
  const validate = validator(name)
  if (!validate(doc)) throw new Error(`${schema} --json output does not match schemas/${name}.schema.json: ${ajv.errorsText(validate.errors, {separator: '; '})}\n${r.stdout.slice(0, 2000)}`)
  const seen = checked.get(schema) ?? new Set()
  seen.add(name === 'error' ? 'error' : 'ok')
  checked.set(schema, seen)
  return doc
}

/** A run's document, valid against its command's schema, with exit code `code`. */
export function expectDoc<T>(r: RunResult, schema: string, code = 0): T {
  const doc = validDoc(r, schema, schema) as T
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(code)
  return doc
}

/** A failed run: the error envelope, valid against the error schema, whose exitCode is the process's (never 0). */
export function expectError(r: RunResult, schema: string): ErrorEnvelope['error'] {
  const {error} = validDoc(r, schema, 'error') as ErrorEnvelope
  expect(r.code, r.stdout).toBe(error.exitCode)
  expect(r.code).not.toBe(0)
  return error
}
