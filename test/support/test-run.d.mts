// Types of test-run.mjs (plain JS, so that scripts/test.js can use it without a build).
export declare const RUN_DIR_ENV: 'CLAWKIT_TEST_RUN_DIR'
export declare function openTestRun(): string
export declare function pgRecordPath(runDir: string): string
export declare function closeTestRun(runDir: string): void

/** What postgres.ts writes to pgRecordPath(): enough for closeTestRun to stop the cluster without TypeScript. */
export interface PgRecord {
  dir: string
  port: number
  /** The argv that stops the cluster (pg_ctl stop, through runuser when the run is root's). */
  stop: string[]
}
