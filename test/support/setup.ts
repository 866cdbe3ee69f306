// Runs in every test file (vitest.config.ts setupFiles): removes the temp dirs the file made, once it is done.
import {afterAll} from 'vitest'

import {removeTempDirs} from './cli.js'

afterAll(() => removeTempDirs())
