import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"

export interface TagRow {
  readonly label: string
  readonly creationDate: Date
  readonly userId: string
}

/** One user's recommendations in a project, with the users row when there is one. */
export interface RecommenderRow {
  readonly userId: string
  readonly name: string | null
  readonly email: string | null
  readonly provider: string | null
  readonly count: number
}

const countOf = (rows: ReadonlyArray<unknown>) => rows.length

/** SQL of stars, tags and recommendations; every write reports the rows it actually changed. */
export class DocumentMarksRepo extends Effect.Service<DocumentMarksRepo>()("quarry/DocumentMarksRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const star = (project: string, ids: ReadonlyArray<string>, user: string) =>
      sql`INSERT INTO document_stars (project, doc_id, user_id)
          SELECT ${project}, id, ${user} FROM unnest(${ids}::text[]) AS id ORDER BY id
          ON CONFLICT DO NOTHING RETURNING doc_id`.pipe(Effect.map(countOf))

    const unstar = (project: string, ids: ReadonlyArray<string>, user: string) =>
      sql`DELETE FROM document_stars WHERE project = ${project} AND user_id = ${user} AND doc_id = ANY(${ids}::text[])
          RETURNING doc_id`.pipe(Effect.map(countOf))

    const starredIds = (project: string, user: string) =>
      sql<{ docId: string }>`SELECT doc_id AS "docId" FROM document_stars WHERE project = ${project} AND user_id = ${user}
          ORDER BY doc_id`.pipe(Effect.map((rows) => rows.map((row) => row.docId)))

    const starsOf = (user: string, projects: ReadonlyArray<string>) =>
      sql<{ project: string; docId: string }>`SELECT project, doc_id AS "docId" FROM document_stars
          WHERE user_id = ${user} AND project = ANY(${projects}::text[]) ORDER BY project, doc_id`

    const addTags = (project: string, ids: ReadonlyArray<string>, labels: ReadonlyArray<string>, user: string) =>
      sql`INSERT INTO document_tags (project, doc_id, label, user_id)
          SELECT ${project}, id, label, ${user} FROM unnest(${ids}::text[]) AS id, unnest(${labels}::text[]) AS label
          ORDER BY id, label
          ON CONFLICT DO NOTHING RETURNING doc_id`.pipe(Effect.map(countOf))

    const removeTags = (project: string, ids: ReadonlyArray<string>, labels: ReadonlyArray<string>) =>
      sql`DELETE FROM document_tags WHERE project = ${project} AND doc_id = ANY(${ids}::text[]) AND label = ANY(${labels}::text[])
          RETURNING doc_id`.pipe(Effect.map(countOf))

    const tagsOf = (project: string, docId: string) =>
      sql<TagRow>`SELECT label, creation_date AS "creationDate", user_id AS "userId" FROM document_tags
          WHERE project = ${project} AND doc_id = ${docId} ORDER BY creation_date, label`

    const taggedWithAny = (project: string, labels: ReadonlyArray<string>) =>
      sql<{ docId: string }>`SELECT DISTINCT doc_id AS "docId" FROM document_tags
          WHERE project = ${project} AND label = ANY(${labels}::text[]) ORDER BY 1`.pipe(Effect.map((rows) => rows.map((row) => row.docId)))

    const recommend = (project: string, ids: ReadonlyArray<string>, user: string) =>
      sql`INSERT INTO document_recommendations (project, doc_id, user_id)
          SELECT ${project}, id, ${user} FROM unnest(${ids}::text[]) AS id ORDER BY id
          ON CONFLICT DO NOTHING RETURNING doc_id`.pipe(Effect.map(countOf))

    const unrecommend = (project: string, ids: ReadonlyArray<string>, user: string) =>
      sql`DELETE FROM document_recommendations
          WHERE project = ${project} AND user_id = ${user} AND doc_id = ANY(${ids}::text[]) RETURNING doc_id`.pipe(Effect.map(countOf))

    const recommendedBy = (project: string, users: ReadonlyArray<string>) =>
      sql<{ docId: string }>`SELECT DISTINCT doc_id AS "docId" FROM document_recommendations
          WHERE project = ${project} AND user_id = ANY(${users}::text[]) ORDER BY 1`.pipe(
        Effect.map((rows) => rows.map((row) => row.docId))
      )

    /** Recommendations of a project, optionally only of some documents: per user, and distinct documents overall. */
    const recommenders = (project: string, docIds: ReadonlyArray<string> | undefined) =>
      Effect.gen(function* () {
        const onDocs = docIds === undefined ? sql`` : sql` AND r.doc_id = ANY(${docIds}::text[])`
        const users = yield* sql<RecommenderRow>`
          SELECT r.user_id AS "userId", u.name, u.email, u.provider, count(*)::int AS count
          FROM document_recommendations r LEFT JOIN users u ON u.login = r.user_id
          WHERE r.project = ${project}${onDocs}
          GROUP BY r.user_id, u.name, u.email, u.provider ORDER BY count DESC, r.user_id`
        const total = yield* sql<{ total: number }>`
          SELECT count(DISTINCT r.doc_id)::int AS total FROM document_recommendations r WHERE r.project = ${project}${onDocs}`
        return { users, totalCount: total[0]?.total ?? 0 }
      })

    return dieOnSqlErrors({
      star,
      unstar,
      starredIds,
      starsOf,
      addTags,
      removeTags,
      tagsOf,
      taggedWithAny,
      recommend,
      unrecommend,
      recommendedBy,
      recommenders
    })
  })
}) {}
