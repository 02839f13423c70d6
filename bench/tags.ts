/**
 * `npm run bench -- tags`: batch tagging as POST /api/:project/documents/batchUpdate/tag does it (DocumentMarks.tag:
 * lock the documents in id order, add the labels missing from each `tags` array, insert the tag rows, in one
 * transaction), BENCH_DOCUMENTS (default 10 000) documents at a time, ROUNDS times with new labels, on the
 * embedded database and on the PostgreSQL server. The baseline, in the same run on the same database, does the
 * least the same result needs: one plain UPDATE appending the labels and one INSERT of the rows, no locks, no
 * de-duplication. The ratio is the baseline's time over ours (higher is better, 1 = no overhead).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { DatabaseInfo } from "../src/db/Database.ts"
import { DocumentMarks } from "../src/domain/document/DocumentMarks.ts"
import { DocumentMarksRepo } from "../src/domain/document/DocumentMarksRepo.ts"
import { DocumentIndex } from "../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../src/search/postgres/PostgresDocumentIndex.ts"
import { testDatabase } from "../test/engine/helpers.ts"
import { postgresAvailable } from "../test/helpers/databases.ts"
import { textDocument } from "../test/helpers/marks.ts"
import { report } from "./report.ts"

const documentCount = Number(process.env.BENCH_DOCUMENTS ?? 10_000)
const rounds = 5
const caller = { login: "bench", grantedProjects: ["ours", "baseline"] }

const seconds = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const started = performance.now()
    yield* effect
    return (performance.now() - started) / 1_000
  })

const measure = (database: Layer.Layer<SqlClient.SqlClient | DatabaseInfo>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const index = yield* DocumentIndex
    const marks = yield* DocumentMarks
    const ids = (project: string) => Array.from({ length: documentCount }, (_, n) => `${project}-${n}`)
    for (const project of ["ours", "baseline"]) {
      yield* index.bulkIndex(
        project,
        ids(project).map((id, n) => textDocument(id, `/bench/${project}/${n}.txt`, "text"))
      )
    }
    let ours = 0
    let baseline = 0
    for (let round = 0; round < rounds; round++) {
      const labels = [`label-${round}`, `shared-${round % 2}`]
      ours += yield* seconds(marks.tag("ours", ids("ours"), labels, caller))
      baseline += yield* seconds(
        sql.withTransaction(
          Effect.all([
            sql`UPDATE documents SET tags = tags || ${labels}::text[] WHERE project = 'baseline' AND id = ANY(${ids("baseline")}::text[])`,
            sql`INSERT INTO document_tags (project, doc_id, label, user_id)
                SELECT 'baseline', id, label, 'bench' FROM unnest(${ids("baseline")}::text[]) AS id, unnest(${labels}::text[]) AS label
                ON CONFLICT DO NOTHING`
          ])
        )
      )
    }
    return { ours, baseline }
  }).pipe(
    Effect.provide(
      DocumentMarks.Default.pipe(
        Layer.provide(DocumentMarksRepo.Default),
        Layer.provideMerge(PostgresDocumentIndex),
        Layer.provideMerge(database)
      )
    ),
    Effect.orDie,
    Effect.scoped
  )

export const run = async () => {
  const figures: Record<string, unknown> = { documents: documentCount, rounds }
  const line = (label: string, result: { ours: number; baseline: number }) => {
    const perSecond = (total: number) => Math.round((documentCount * rounds) / total)
    process.stdout.write(`${label}: ${perSecond(result.ours)} documents tagged/s; baseline ${perSecond(result.baseline)}/s\n`)
    return {
      documentsPerSecond: perSecond(result.ours),
      baselinePerSecond: perSecond(result.baseline),
      ratio: Math.round((result.baseline / result.ours) * 1000) / 1000
    }
  }
  figures.embedded = line("embedded", await Effect.runPromise(measure(testDatabase("pglite"))))
  if (postgresAvailable) figures.server = line("server  ", await Effect.runPromise(measure(testDatabase("postgres"))))
  else process.stdout.write("server: skipped, PostgreSQL server not reachable\n")
  report("tags", figures)
}
