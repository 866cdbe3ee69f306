// `clawkit undo`, written once for every backend: which journal entry to reverse, whether the store has moved on in
// a way that conflicts, and the reversal itself (each step replayed toward its before image by the backend that
// wrote it), journaled like any other change so that it can be undone too.
import {ClawkitError, ExitCode, UsageError} from '../errors.js'
import {realLocation} from './fs-util.js'
import {type Journal, type JournalEntry, killPoint, type JournalEntryMeta, type JournalStep, type NewStep} from './journal.js'
import type {OpenClawState} from './state.js'
import type {SessionStore} from './types.js'

export interface UndoOptions {
  journal: Journal
  /** The entry to undo; default the newest change to this state dir that is not undone (and is not itself an undo). */
  id?: string
  /** Undo without journaling the undo (it cannot be redone then). */
  noJournal?: boolean
  /** What was run, as the undo entry's command. */
  command?: string
}

export interface UndoOutcome {
  /** The entry reversed (an undo's own entry when this re-applied a change). */
  undone: JournalEntryMeta
  /** The entry recording this undo (undefined with --no-journal). */
  entry?: JournalEntryMeta
  /** True when `undone` was itself an undo: the change it had reversed is applied again. */
  redo: boolean
  /** The steps replayed, newest first. */
  steps: {n: number; label: string}[]
}

function nothingToUndo(stateDir: string): ClawkitError {
  return new ClawkitError(`Nothing to undo: the journal has no change to ${stateDir} that is not undone already.`, {code: 'E_NOTHING_TO_UNDO', exitCode: ExitCode.nothingToDo, suggestions: ['"clawkit undo --list" shows the journal.']})
}

/** The entry `undo` acts on when given no id: the newest change that is neither undone nor an undo. */
export async function defaultUndoTarget(journal: Journal, stateDir: string): Promise<JournalEntryMeta | undefined> {
  return (await journal.list({stateDir})).find((m) => m.action !== 'undo' && m.status !== 'undone')
}

function storeOf(state: OpenClawState, step: JournalStep): SessionStore {
  const store = state.storeFor({agentId: step.agentId, path: step.store})
  if (!store.maintenance) throw new ClawkitError(`The store ${step.store} cannot replay journal steps.`, {code: 'E_INTERNAL'})
  return store
}

/** A step's paths or rows, to tell whether a later step of the entry touches them too (then it is checked in turn). */
function touches(step: JournalStep): string[] {
  if (step.kind === 'files') return step.files.map((f) => `file:${f.path}`)
  if (step.kind === 'index') return [`file:${step.path}`]
  return [...step.scope.keys.map((k) => `row:${step.store}:k:${k}`), ...step.scope.sessionIds.map((i) => `row:${step.store}:s:${i}`)]
}

/**
 * Why undoing these steps (newest first) would be refused. A step whose paths or rows a newer step of the same entry
 * also touched is checked when its turn comes (the newer step's undo puts them back in its image first).
 */
async function conflictsOf(state: OpenClawState, steps: JournalStep[], source: JournalEntry): Promise<string[]> {
  const touched = new Set<string>()
  const out: string[] = []
  for (const step of steps) {
    const t = touches(step)
    if (!t.some((x) => touched.has(x))) out.push(...(await storeOf(state, step).maintenance!.conflicts(step, 'before', source)))
    for (const x of t) touched.add(x)
  }
  return out
}

/** What `undo` would do now, changing nothing: the entry, its steps newest first, and why it would be refused. */
export async function planUndo(state: OpenClawState, opts: {journal: Journal; id?: string}): Promise<{target: JournalEntryMeta; steps: {n: number; label: string}[]; conflicts: string[]}> {
  const meta = opts.id ? (await opts.journal.open(opts.id)).meta : await defaultUndoTarget(opts.journal, state.stateDir)
  if (!meta) throw nothingToUndo(state.stateDir)
  const target = await opts.journal.open(meta.id)
  const steps = (await target.steps()).reverse()
  const conflicts = target.meta.status === 'undone' ? [`it is undone already${target.meta.undoneBy ? ` (by ${target.meta.undoneBy})` : ''}`] : await conflictsOf(state, steps, target)
  return {target: target.meta, steps: steps.map((s) => ({n: s.n, label: s.label})), conflicts}
}

/**
 * Undo one journal entry. Refused as a whole, before anything changes, when the store has moved on in a way that
 * conflicts (a newer turn on a key the undo would put back, a file rewritten since). A crash part-way leaves each step
 * in one image or the other; running undo again finishes (the interrupted undo's own entry is taken up again).
 */
export async function undoChange(state: OpenClawState, opts: UndoOptions): Promise<UndoOutcome> {
  const journal = opts.journal
  return journal.withLock(async () => {
    const meta = opts.id ? (await journal.open(opts.id)).meta : await defaultUndoTarget(journal, state.stateDir)
    if (!meta) throw nothingToUndo(state.stateDir)
    const target = await journal.open(meta.id)
    if (target.meta.stateDir !== realLocation(state.stateDir)) {
      throw new UsageError(`Journal entry ${meta.id} changed ${target.meta.stateDir}, not this state dir (${state.stateDir}); run "clawkit undo ${meta.id} --state-dir ${target.meta.stateDir}".`, 'E_UNDO_OTHER_STATE_DIR')
    }
    if (target.meta.status === 'undone') {
      throw new ClawkitError(`Journal entry ${meta.id} (${target.meta.command}) is undone already${target.meta.undoneBy ? `, by ${target.meta.undoneBy}` : ''}.`, {
        code: 'E_ALREADY_UNDONE',
        exitCode: ExitCode.failure,
        suggestions: target.meta.undoneBy && target.meta.undoneBy !== 'no-journal' ? [`"clawkit undo ${target.meta.undoneBy}" applies it again.`] : undefined,
      })
    }
    const steps = (await target.steps()).reverse()
    // An undo of this entry that was interrupted is taken up again rather than begun twice: the steps it replayed
    // already (its `replayed` count, saved after each) are not checked or replayed again.
    const resumed = opts.noJournal ? undefined : (await journal.list({stateDir: state.stateDir})).find((m) => m.action === 'undo' && m.undoes === meta.id && m.status === 'pending')
    const done = resumed?.replayed ?? 0
    const todo = steps.slice(done)
    const conflicts = await conflictsOf(state, todo, target)
    if (conflicts.length > 0) {
      throw new ClawkitError(`Cannot undo ${meta.id} (${target.meta.command}): the store has moved on since. ${conflicts.slice(0, 5).join('; ')}${conflicts.length > 5 ? `; and ${conflicts.length - 5} more` : ''}. Nothing was changed.`, {
        code: 'E_UNDO_CONFLICT',
        exitCode: ExitCode.failure,
        suggestions: ['Undo the newer changes first ("clawkit undo --list"), or leave this one as it is.'],
      })
    }
    let own: JournalEntry | undefined
    if (!opts.noJournal) {
      own = resumed ? await journal.open(resumed.id) : await journal.begin({stateDir: state.stateDir, action: 'undo', command: opts.command ?? `undo ${meta.id}`, summary: `undo of ${meta.id} (${target.meta.command})`, undoes: meta.id})
      // Every step is recorded (inverted) before the first replay; a resumed undo records those a kill left out.
      const have = (await own.steps()).length
      for (const s of steps.slice(have)) await own.record(invert(s))
    }
    let replayed = done
    for (const s of todo) {
      await storeOf(state, s).maintenance!.replay(s, 'before', own ?? target, own)
      replayed++
      if (own) {
        own.meta = {...own.meta, replayed}
        await own.saveMeta()
      }
      killPoint(`replay:${replayed}`)
    }
    if (own) await own.finish('applied')
    target.meta = {...target.meta, status: 'undone', undoneBy: own?.id ?? 'no-journal'}
    await target.saveMeta()
    const redo = target.meta.action === 'undo' && target.meta.undoes !== undefined
    if (redo) {
      // Undoing an undo applies the change it had reversed again: that entry counts as applied once more.
      const original = await journal.open(target.meta.undoes!).catch(() => undefined)
      if (original) {
        const {undoneBy: _u, ...rest} = original.meta
        original.meta = {...rest, status: 'applied'}
        await original.saveMeta()
      }
    }
    return {undone: target.meta, entry: own?.meta, redo, steps: steps.map((s) => ({n: s.n, label: s.label}))}
  })
}

/** The same step seen from the other side: what it makes `after` becomes what its undo starts from. */
function invert(step: JournalStep): NewStep {
  const {n: _n, ...s} = step
  if (s.kind === 'files') return {...s, files: s.files.map((f) => ({...f, before: f.after, after: f.before}))}
  if (s.kind === 'index') return {...s, before: s.after, after: s.before, changes: s.changes.map((c) => ({key: c.key, before: c.after, after: c.before, position: c.position}))}
  return {...s, before: s.after, after: s.before}
}
