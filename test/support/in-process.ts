// A command's core call made in the test's own process, as the document its --json would print: the oracle side of a
// comparison whose other side is a real CLI run (a second CLI process per comparison was most of some files' time).
import {OpenClawState} from '../../src/store/state.js'

/** `run` on the state dir opened as a CLI run opens it (no clawkit settings), its result through JSON as printed. */
export async function inProcess<T>(stateDir: string, run: (state: OpenClawState) => Promise<T>): Promise<T> {
  const state = OpenClawState.open({stateDir, ignoreSettings: true, env: {HOME: '/nonexistent'}})
  try {
    return JSON.parse(JSON.stringify(await run(state))) as T
  } finally {
    state.close()
  }
}
