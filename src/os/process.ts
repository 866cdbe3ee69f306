// Probes of other processes, from /proc where Linux has it: whether a pid is alive, when it started, and which
// processes hold a file open. Lock files and OpenClaw's gateway locks are judged by them.
import fs from 'node:fs'
import path from 'node:path'

/** Field 22 of /proc/<pid>/stat (process start time in clock ticks); Linux only. */
export function readProcessStartTime(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may contain spaces and parentheses; fields after the last ')' are fixed.
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const v = Number(after[19])
    return Number.isFinite(v) ? v : undefined
  } catch {
    return undefined
  }
}

function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return false
  }
}

export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM means it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return !isZombie(pid)
}

/**
 * Live pids that have `file` open, from /proc/<pid>/fd (Linux); undefined where that cannot be inspected. Processes
 * whose descriptors we may not read (other users') are skipped: the state dir is private to its owner, so only the
 * owner's processes (or root, when run as root) can hold a lock in it. `known` (the holders found last time) are
 * checked first: while one of them still has it open the answer is the same, without listing every process again.
 */
export function processesHoldingFile(file: string, known: number[] = []): number[] | undefined {
  if (process.platform !== 'linux') return undefined
  let target: fs.Stats
  try {
    target = fs.statSync(file)
  } catch {
    return undefined
  }
  const base = path.basename(file)
  const holds = (pid: string): boolean => {
    let fds: string[]
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`)
    } catch {
      return false
    }
    for (const fd of fds) {
      const link = `/proc/${pid}/fd/${fd}`
      try {
        // The link's text is the kernel's name for the descriptor (readlink touches no filesystem), while stat follows
        // it to the file, which hangs on a dead network mount and costs a syscall per descriptor on the host. So only
        // names that can be this lock are stat'ed: its own, or the scratch name clawkit links it from
        // (`<lock>.<pid>.<hex>.tmp (deleted)`). The stat then compares inodes: a bind mount or a moved state dir
        // shows another directory. A holder that opened it under an unrelated hard-link name is not seen.
        if (!path.basename(fs.readlinkSync(link)).startsWith(base)) continue
        const st = fs.statSync(link)
        if (st.ino === target.ino && st.dev === target.dev) return true
      } catch {}
    }
    return false
  }
  const still = known.filter((pid) => holds(String(pid)))
  if (still.length > 0) return still
  let pids: string[]
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))
  } catch {
    return undefined
  }
  return pids.filter((pid) => holds(pid)).map(Number)
}
