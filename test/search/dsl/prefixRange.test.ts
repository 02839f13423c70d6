import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { startsWith } from "../../../src/search/postgres/dsl/PatternConditions.ts"
import { testDatabase } from "../../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"

/**
 * A keyword prefix is searched as a range of byte order (so that the path's pattern index holds it exactly): it must
 * keep the same values as `LIKE 'prefix%'`, at the edges of UTF-8 too.
 */

const values = [
  "a",
  "ab",
  "abc",
  "abd",
  "ac",
  "b",
  "é",
  "éa",
  "f",
  "a\u{D7FF}",
  "a\u{D7FF}x",
  "a\u{E000}",
  "a\u{10FFFF}",
  "a\u{10FFFF}z",
  "\u{10FFFF}",
  "\u{10FFFF}\u{10FFFF}",
  ""
]
const prefixes = ["a", "ab", "abc", "é", "a\u{D7FF}", "a\u{10FFFF}", "\u{10FFFF}", "\u{10FFFF}\u{10FFFF}", "z"]

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`keyword prefixes on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testDatabase(database))((it) => {
      it.effect("a prefix's range keeps exactly the values LIKE keeps", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          for (const prefix of prefixes) {
            const like = prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + "%"
            const rows = yield* sql<{ value: string; liked: boolean; ranged: boolean }>`
              SELECT v.value, v.value LIKE ${like} AS liked, ${startsWith(sql, sql`v.value`, prefix)} AS ranged
              FROM unnest(${values}::text[]) AS v(value)`
            expect(rows.filter((row) => row.ranged).map((row) => row.value)).toEqual(
              rows.filter((row) => row.liked).map((row) => row.value)
            )
            // Every prefix but "z" starts some of the values.
            expect(rows.some((row) => row.liked)).toBe(prefix !== "z")
          }
        })
      )
    })
  })
}
