import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"
import type { ProjectFields, ProjectRow } from "./Project.ts"

/** SQL of the projects table, and of every row that belongs to a project (for its deletion). */
export class ProjectRepo extends Effect.Service<ProjectRepo>()("quarry/ProjectRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, source_path AS "sourcePath", label, description, publisher_name AS "publisherName",
      maintainer_name AS "maintainerName", logo_url AS "logoUrl", source_url AS "sourceUrl",
      allow_from_mask AS "allowFromMask", creation_date AS "creationDate", update_date AS "updateDate"`)

    const find = Effect.fn("ProjectRepo.find")(function* (id: string) {
      return Arr.head(yield* sql<ProjectRow>`SELECT ${columns} FROM projects WHERE id = ${id}`)
    })

    const listIn = Effect.fn("ProjectRepo.listIn")(function* (ids: ReadonlyArray<string>) {
      return yield* sql<ProjectRow>`SELECT ${columns} FROM projects WHERE id = ANY(${ids}::text[]) ORDER BY id`
    })

    /** Inserts the project; None when a project of that id exists already. */
    const insert = Effect.fn("ProjectRepo.insert")(function* (id: string, sourcePath: string, fields: ProjectFields) {
      return Arr.head(
        yield* sql<ProjectRow>`
          INSERT INTO projects (id, source_path, label, description, publisher_name, maintainer_name, logo_url, source_url)
          VALUES (${id}, ${sourcePath}, ${fields.label}, ${fields.description}, ${fields.publisherName},
                  ${fields.maintainerName}, ${fields.logoUrl}, ${fields.sourceUrl})
          ON CONFLICT (id) DO NOTHING
          RETURNING ${columns}`
      )
    })

    /** Replaces the editable fields; the mask and the source path stay as they are. None when there is no row. */
    const update = Effect.fn("ProjectRepo.update")(function* (id: string, fields: ProjectFields) {
      return Arr.head(
        yield* sql<ProjectRow>`
          UPDATE projects SET label = ${fields.label}, description = ${fields.description},
            publisher_name = ${fields.publisherName}, maintainer_name = ${fields.maintainerName},
            logo_url = ${fields.logoUrl}, source_url = ${fields.sourceUrl}, update_date = now()
          WHERE id = ${id}
          RETURNING ${columns}`
      )
    })

    /** Deletes the rows users attached to the project, its queued files, its batch-search results, and the project row. */
    const removeRows = Effect.fn("ProjectRepo.removeRows")(function* (id: string) {
      yield* sql`DELETE FROM document_stars WHERE project = ${id}`
      yield* sql`DELETE FROM document_tags WHERE project = ${id}`
      yield* sql`DELETE FROM document_recommendations WHERE project = ${id}`
      yield* sql`DELETE FROM notes WHERE project = ${id}`
      yield* sql`DELETE FROM user_history_projects WHERE project = ${id}`
      yield* sql`DELETE FROM document_queue WHERE project = ${id}`
      // Batch searches lose the project's results; those searching this project alone go with it.
      yield* sql`DELETE FROM batch_search_results WHERE prj_id = ${id}`
      yield* sql`DELETE FROM batch_searches b WHERE EXISTS (SELECT 1 FROM batch_search_projects p WHERE p.search_uuid = b.uuid AND p.project_id = ${id})
        AND NOT EXISTS (SELECT 1 FROM batch_search_projects p WHERE p.search_uuid = b.uuid AND p.project_id <> ${id})`
      yield* sql`DELETE FROM batch_search_projects WHERE project_id = ${id}`
      yield* sql`DELETE FROM projects WHERE id = ${id}`
    })

    return dieOnSqlErrors({ find, listIn, insert, update, removeRows })
  })
}) {}
