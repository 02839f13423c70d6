import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { type Duration, Effect, Layer } from "effect"
import type { IndexPayload, ScanPayload } from "../../../src/domain/ingest/IngestOptions.ts"
import { Engine } from "../../../src/engine/Engine.ts"
import { IndexJob } from "../../../src/engine/kinds/IndexJob.ts"
import { ingestionKindsLayer } from "../../../src/engine/kinds/index.ts"
import { ScanJob } from "../../../src/engine/kinds/ScanJob.ts"
import { Extractor } from "../../../src/extract/Extractor.ts"
import { PostgresDocumentIndex } from "../../../src/search/postgres/PostgresDocumentIndex.ts"
import { eventually, readTask, startEngine } from "../helpers.ts"

/** An engine running scan and index tasks over the test database, for the current scope. */
export const startIngestionEngine = (parallelism = 2) =>
  startEngine({ parallelism }, ingestionKindsLayer.pipe(Layer.provide(Layer.mergeAll(Extractor.Default, PostgresDocumentIndex))))

/** A fresh folder removed with the scope. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-ingest-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

export const defaultScanOptions = { includeHiddenFiles: false, includeOSFiles: false, followSymlinks: false } as const

export const finished = (id: Parameters<typeof readTask>[0], timeout: Duration.DurationInput = "30 seconds") =>
  eventually(readTask(id), (task) => task.state !== "QUEUED" && task.state !== "RUNNING", timeout)

/** Runs a scan to its end; answers the finished task. */
export const scan = (engine: Engine, directory: string, project: string, options: Partial<ScanPayload["options"]> = {}) =>
  Effect.gen(function* () {
    const task = yield* engine.submit(ScanJob, { directory, project, options: { ...defaultScanOptions, ...options } }, { userId: "local" })
    return yield* finished(task.id)
  })

export const indexPayload = (project: string, parallelism = 2): IndexPayload => ({ project, parallelism, ocr: false, maxContentLength: -1 })

export const indexAll = (engine: Engine, project: string, parallelism = 2) =>
  Effect.gen(function* () {
    const task = yield* engine.submit(IndexJob, indexPayload(project, parallelism), { userId: "local" })
    return yield* finished(task.id, "120 seconds")
  })

/** The queued paths of a project, sorted. */
export const queuedPaths = (project: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ path: string }>`SELECT path FROM document_queue WHERE project = ${project} ORDER BY path`
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows.map((row) => row.path))
  )

export const remaining = (project: string) => Effect.map(queuedPaths(project), (paths) => paths.length)
