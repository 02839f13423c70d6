import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { testDatabase } from "../engine/helpers.ts"
import { postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"

/** How a new document's long content is stored: its compression method (null when stored as it is). */
const storedCompression = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Long and varied enough to be moved out of line and compressed.
  const content = Array.from({ length: 4000 }, (_, i) => `word${i % 997} sentence ${i}.`).join(" ")
  yield* sql`INSERT INTO documents (project, id, root_id, path, dirname, dirname_tree, content, content_type, content_length,
    content_text_length, content_encoding, language, metadata, extraction_date, extraction_level, status, content_tsv)
    VALUES ('compression', 'd1', 'd1', '/d1.txt', '/', '{/}', ${content}, 'text/plain', 1, 1, 'UTF-8', 'ENGLISH', '{}', now(), 0,
      'DONE', to_tsvector('simple', ${content}))`
  const rows = yield* sql<{ method: string | null }>`
    SELECT pg_column_compression(content) AS method FROM documents WHERE project = 'compression' AND id = 'd1'`
  return rows[0]?.method
})

describe("documents' content storage on the embedded database", () => {
  it.scoped("is uncompressed, as PGlite has no LZ4 and its pglz runs in WebAssembly", () =>
    Effect.gen(function* () {
      expect(yield* storedCompression).toBeNull()
    }).pipe(Effect.provide(testDatabase("pglite")))
  )
})

describe.skipIf(!postgresAvailable)(
  `documents' content storage on PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    it.scoped("is LZ4, which a page of long hits decompresses faster than pglz", () =>
      Effect.gen(function* () {
        expect(yield* storedCompression).toBe("lz4")
      }).pipe(Effect.provide(testDatabase("postgres")))
    )
  }
)
