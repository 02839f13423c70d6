import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { resolveSettings, Settings } from "../../src/config/Settings.ts"
import { startScanAndIndex } from "../../src/domain/ingest/Ingestion.ts"
import { Projects } from "../../src/domain/project/Projects.ts"
import { ProjectRepo } from "../../src/domain/project/ProjectRepo.ts"
import { CurrentUser } from "../../src/domain/user/CurrentUser.ts"
import { IndexJob } from "../../src/engine/kinds/IndexJob.ts"
import { ScanJob } from "../../src/engine/kinds/ScanJob.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { clearTasks, startEngine, testDatabase } from "../engine/helpers.ts"
import { tempDir } from "../engine/ingestion/helpers.ts"

const administrator = {
  user: { id: "local", name: null, email: null, provider: "local", details: {} },
  isAdmin: true,
  grantedProjects: Effect.succeed(["local-datashare"])
}

const tasksOfKind = (kind: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`SELECT id FROM tasks WHERE kind = ${kind}`).pipe(Effect.orDie)

/** Scan-and-index as a caller of the data folder `dataDir`, over an engine with no kinds (its tasks stay queued). */
const scanAndIndex = (dataDir: string) =>
  Effect.gen(function* () {
    const settings = yield* resolveSettings({ env: {}, cli: { dataDir }, defaultSettingsFile: `${dataDir}/absent.properties` })
    const services = Projects.Default.pipe(
      Layer.provide(Layer.mergeAll(ProjectRepo.Default, PostgresDocumentIndex)),
      Layer.provideMerge(Layer.succeed(Settings, settings))
    )
    const engine = yield* startEngine()
    return yield* startScanAndIndex(dataDir, settings.values).pipe(
      Effect.provide(services),
      Effect.provide(engine),
      Effect.provideService(CurrentUser, administrator),
      Effect.exit
    )
  })

for (const database of ["pglite", "postgres"] as const) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Scan and index on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testDatabase(database), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped("queues the scan and its index task together", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const exit = yield* scanAndIndex(yield* tempDir)
          expect(Exit.isSuccess(exit)).toBe(true)
          expect(yield* tasksOfKind(ScanJob.name)).toHaveLength(1)
          expect(yield* tasksOfKind(IndexJob.name)).toHaveLength(1)
        })
      )

      it.scoped("queues neither when the index task cannot be queued", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const sql = yield* SqlClient.SqlClient
          yield* sql.unsafe(`CREATE FUNCTION refuse_index_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'index tasks refused by the test'; END $$`)
          yield* sql.unsafe(`CREATE TRIGGER refuse_index_tasks BEFORE INSERT ON tasks FOR EACH ROW
            WHEN (NEW.kind = '${IndexJob.name}') EXECUTE FUNCTION refuse_index_tasks()`)
          const exit = yield* scanAndIndex(yield* tempDir).pipe(
            Effect.ensuring(
              Effect.orDie(
                Effect.zipRight(sql.unsafe("DROP TRIGGER refuse_index_tasks ON tasks"), sql.unsafe("DROP FUNCTION refuse_index_tasks()"))
              )
            )
          )
          expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
          expect(yield* tasksOfKind(ScanJob.name)).toHaveLength(0)
          expect(yield* tasksOfKind(IndexJob.name)).toHaveLength(0)
        }).pipe(Effect.orDie)
      )
    })
  })
}
