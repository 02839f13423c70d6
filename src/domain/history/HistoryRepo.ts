import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"
import type { EventType, HistoryQuery } from "./History.ts"

export interface HistoryRow {
  readonly id: number
  readonly userId: string
  readonly creationDate: Date
  readonly modificationDate: Date
  readonly type: EventType
  readonly name: string | null
  readonly uri: string
}

/** SQL of user_history and its project links. */
export class HistoryRepo extends Effect.Service<HistoryRepo>()("quarry/HistoryRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const list = (user: string, query: HistoryQuery) =>
      Effect.gen(function* () {
        const where = sql`h.user_id = ${user} AND h.type = ${query.type}${
          query.projects.length === 0
            ? sql``
            : sql` AND EXISTS (SELECT 1 FROM user_history_projects p WHERE p.history_id = h.id AND p.project = ANY(${query.projects}::text[]))`
        }`
        // The column comes from a fixed list of names (History.sortColumns), never from the request's text.
        const direction = sql.literal(query.descending ? "DESC" : "ASC")
        const order = sql`ORDER BY ${sql.literal(`h.${query.sortColumn}`)} ${direction}, h.id ${direction}`
        const page = query.size === 0 ? sql`OFFSET ${query.from}` : sql`LIMIT ${query.size} OFFSET ${query.from}`
        const items = yield* sql<HistoryRow>`
          SELECT h.id, h.user_id AS "userId", h.creation_date AS "creationDate", h.modification_date AS "modificationDate",
            h.type, h.name, h.uri
          FROM user_history h WHERE ${where} ${order} ${page}`
        const total = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM user_history h WHERE ${where}`
        return { items, total: total[0]?.total ?? 0 }
      })

    /** An event of a (user, uri) already stored keeps its id, type, name and creation date and is only refreshed. */
    const upsert = (user: string, type: EventType, name: string | null, uri: string) =>
      sql<{ id: number }>`
        INSERT INTO user_history (user_id, type, name, uri, creation_date, modification_date)
        VALUES (${user}, ${type}, ${name}, ${uri}, clock_timestamp(), clock_timestamp())
        ON CONFLICT (user_id, md5(uri)) DO UPDATE SET modification_date = clock_timestamp()
        RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id))

    const link = (id: number, projects: ReadonlyArray<string>) =>
      sql`INSERT INTO user_history_projects (history_id, project)
          SELECT ${id}, project FROM unnest(${projects}::text[]) AS project ON CONFLICT DO NOTHING`

    const removeType = (user: string, type: EventType) => sql`DELETE FROM user_history WHERE user_id = ${user} AND type = ${type}`

    const removeEvent = (user: string, id: number) => sql`DELETE FROM user_history WHERE user_id = ${user} AND id = ${id}`

    return dieOnSqlErrors({ list, upsert, link, removeType, removeEvent })
  })
}) {}
