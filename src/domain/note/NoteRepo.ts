import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"

export interface NoteRow {
  readonly path: string
  readonly note: string
  readonly variant: string
}

/** SQL of the notes table. */
export class NoteRepo extends Effect.Service<NoteRepo>()("quarry/NoteRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const list = (project: string) => sql<NoteRow>`SELECT path, note, variant FROM notes WHERE project = ${project} ORDER BY path`

    /** Inserts or replaces the note at that path; true when it is new. */
    const upsert = (project: string, row: NoteRow) =>
      sql<{ created: boolean }>`
        INSERT INTO notes (project, path, note, variant) VALUES (${project}, ${row.path}, ${row.note}, ${row.variant})
        ON CONFLICT (project, md5(path)) DO UPDATE SET note = EXCLUDED.note, variant = EXCLUDED.variant
        RETURNING (xmax = 0) AS created`.pipe(Effect.map((rows) => rows[0]?.created === true))

    const remove = (project: string, path: string) =>
      sql`DELETE FROM notes WHERE project = ${project} AND md5(path) = md5(${path}) AND path = ${path} RETURNING path`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    return dieOnSqlErrors({ list, upsert, remove })
  })
}) {}
