import type { SqlClient } from "@effect/sql"
import { Effect, type Option } from "effect"
import type { InteractiveFirst } from "../../db/InteractiveFirst.ts"

/**
 * The upkeep of the PostgreSQL document index after its writes: the lexicon words an index task's writes leave for
 * later on the embedded database (migration 0160), and the refresh at the end of a task. On the embedded database both
 * go in short steps, each in its turn behind the searches (see InteractiveFirst), as its one session runs a statement
 * at a time for everyone.
 */

/**
 * Words (the distinct words of each document, summed) one step of finishWrites adds on the embedded database, where a
 * search waits for the step in progress; a document's words are never split. While real pages indexed and a search ran
 * every 100 ms, the steps of 20 ms or more took 25 ms at the median, 91 ms at the 90th percentile and 243 ms at most.
 */
const pendingWordsPerStep = { searching: 3_000, alone: 50_000 } as const
/** Documents one step of finishWrites considers. */
const maxDocumentsPerStep = 500
/** The tables a refresh vacuums and analyses. */
const refreshedTables = ["documents", "named_entities", "duplicates"] as const
/** The statistics target text-search columns are analysed with on the embedded database (300 rows a unit). */
const textSearchStatisticsTarget = 30

export const postgresIndexUpkeep = (sql: SqlClient.SqlClient, interactiveFirst: Option.Option<InteractiveFirst>) => {
  /**
   * Adds the words of some of the project's documents listed in `index_words_pending`, as many documents as hold
   * `wordBudget` words at most (one at least): a step's time follows its words. Answers how many it took.
   */
  const addPendingWords = (project: string, wordBudget: number) =>
    sql<{ taken: number }>`
      WITH candidates AS (
        SELECT p.project, p.id, coalesce(length(d.content_tsv), 0) + coalesce(length(d.metadata_tsv), 0) AS words
        FROM index_words_pending p LEFT JOIN documents d ON d.project = p.project AND d.id = p.id
        WHERE p.project = ${project}
        ORDER BY p.id
        LIMIT ${maxDocumentsPerStep}
      ), chosen AS (
        SELECT project, id FROM (SELECT project, id, sum(words) OVER (ORDER BY id) - words AS before FROM candidates) c
        WHERE before < ${wordBudget}
      ), taken AS (
        DELETE FROM index_words_pending p USING chosen c WHERE p.project = c.project AND p.id = c.id
        RETURNING p.project, p.id
      ), listed AS (
        SELECT DISTINCT d.project, 'c'::"char" AS field, l.word
        FROM taken t JOIN documents d ON d.project = t.project AND d.id = t.id, unnest(tsvector_to_array(d.content_tsv)) AS l (word)
        UNION
        SELECT DISTINCT d.project, 'm'::"char", l.word
        FROM taken t JOIN documents d ON d.project = t.project AND d.id = t.id, unnest(tsvector_to_array(d.metadata_tsv)) AS l (word)
      ), added AS (
        INSERT INTO index_words (project, field, word)
        SELECT w.project, w.field, w.word FROM listed w
        LEFT JOIN LATERAL (
          SELECT true AS known FROM index_words k
          WHERE k.project = w.project AND k.field = w.field AND k.word = w.word COLLATE "C" LIMIT 1
        ) k ON true
        WHERE k.known IS NULL
      ), renewed AS (
        -- New words change what fuzzy, wildcard, regexp and range terms find: answers cached before are stale.
        UPDATE document_indices SET generation = nextval('document_index_generations')
        WHERE project = ${project} AND EXISTS (SELECT 1 FROM taken)
      )
      SELECT count(*)::int AS taken FROM taken`.pipe(Effect.map((rows) => rows[0]?.taken ?? 0))

  /**
   * The words of the documents bulkIndex inserted with `finishLater` on the embedded database, in steps that each take
   * their turn behind the searches, and smaller while people search. Elsewhere the insert itself added them.
   */
  const finishWrites = Effect.fn("DocumentIndex.finishWrites")(function* (project: string) {
    if (interactiveFirst._tag === "None") return
    const { background, searching } = interactiveFirst.value
    const step = Effect.flatMap(searching, (isSearching) =>
      background(addPendingWords(project, isSearching ? pendingWordsPerStep.searching : pendingWordsPerStep.alone))
    )
    yield* step.pipe(Effect.repeat({ while: (taken) => taken > 0 }))
  })

  const refreshedRelations = sql`ARRAY[${sql.csv(refreshedTables.map((table) => sql`${table}::regclass`))}]`

  /**
   * The embedded database's refresh, in steps that each take a turn behind the searches (see InteractiveFirst): its
   * one session runs a statement at a time for everyone, and the single VACUUM (ANALYZE) held every search for 1.1 to
   * 1.4 s at the end of an index of 12,886 real files, 1.0 s of it the statistics of `documents`. Here each GIN
   * index's pending list is merged on its own (the largest, 0.1 s), VACUUM then has little left (0.1 s), and each
   * column is analysed on its own (25 to 150 ms). Text-search columns are analysed from a smaller sample: their
   * statistics count every word of every sampled row (`content_tsv`, 0.3 to 0.45 s with 30,000 rows, 0.18 s with
   * 9,000), and 9,000 rows still rank the project's frequent words.
   */
  const embeddedRefresh = (background: <A, E, R>(step: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const ginIndexes = yield* sql<{ name: string }>`
        SELECT i.indexrelid::regclass::text AS name
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
        WHERE a.amname = 'gin' AND i.indrelid = ANY(${refreshedRelations})
        ORDER BY 1`
      yield* Effect.forEach(ginIndexes, ({ name }) => background(sql`SELECT gin_clean_pending_list(${name}::regclass)`), {
        discard: true
      })
      yield* Effect.forEach(refreshedTables, (table) => background(sql`VACUUM ${sql(table)}`), { discard: true })
      const columns = yield* sql<{ table: string; column: string; textSearch: boolean }>`
        SELECT attrelid::regclass::text AS table, attname AS column, atttypid = 'tsvector'::regtype AS "textSearch"
        FROM pg_attribute
        WHERE attrelid = ANY(${refreshedRelations}) AND attnum > 0 AND NOT attisdropped
        ORDER BY attrelid, attnum`
      yield* Effect.forEach(
        columns,
        ({ table, column, textSearch }) =>
          background(
            textSearch
              ? sql.withTransaction(
                  Effect.zipRight(
                    sql`SET LOCAL default_statistics_target = ${sql.literal(String(textSearchStatisticsTarget))}`,
                    sql`ANALYZE ${sql(table)} (${sql(column)})`
                  )
                )
              : sql`ANALYZE ${sql(table)} (${sql(column)})`
          ),
        { discard: true }
      )
    })

  /**
   * VACUUM merges the pending lists GIN indexes keep new entries in (every search scans them whole until then: after
   * a bulk index that cost a text search milliseconds and priced the index so high that the planner read the whole
   * project instead), marks the new pages all-visible so that facets can be read from indexes alone, and ANALYZE
   * refreshes the statistics, sampling a bounded number of rows (300 times the statistics target) whatever the
   * table's size. Outside a transaction, as VACUUM must be; on a server it blocks neither reads nor writes.
   */
  const refresh = Effect.fn("DocumentIndex.refresh")(function* () {
    if (interactiveFirst._tag === "Some") return yield* embeddedRefresh(interactiveFirst.value.background)
    yield* sql`VACUUM (ANALYZE) documents, named_entities, duplicates`
  })

  return { finishWrites, refresh }
}
