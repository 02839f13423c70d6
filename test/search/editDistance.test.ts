import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { editDistance } from "../../src/search/postgres/dsl/WordPatterns.ts"
import { testDatabase } from "../engine/helpers.ts"

/** Fuzzy expansion computes distances in Node: they must be the SQL function's, which matching and tests rely on. */

/** A deterministic word of 1–8 letters from a small alphabet (so that neighbours and transpositions are common). */
const wordOf = (seed: number) => {
  const alphabet = ["a", "b", "c", "é", "d", "𝒳"]
  let state = seed * 2654435761
  const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31), state)
  return Array.from({ length: 1 + (next() % 8) }, () => alphabet[next() % alphabet.length]).join("")
}

describe("fuzzy edit distance", () => {
  layer(testDatabase("pglite"))((it) => {
    it.effect("equals quarry_edit_distance on 600 pairs of words, for distances 1 and 2", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const pairs = Array.from({ length: 300 }, (_, index) => [wordOf(index + 1), wordOf(index + 1000)] as const)
        for (const max of [1, 2]) {
          const rows = yield* sql<{ distance: number }>`
            SELECT quarry_edit_distance(p.a, p.b, ${max}) AS distance
            FROM unnest(${pairs.map(([a]) => a)}::text[], ${pairs.map(([, b]) => b)}::text[]) WITH ORDINALITY AS p(a, b, n) ORDER BY p.n`
          expect(pairs.map(([a, b]) => editDistance(a, b, max))).toEqual(rows.map((row) => row.distance))
        }
        expect(editDistance("ab", "ba", 2)).toBe(1)
        expect(editDistance("kitten", "sitting", 2)).toBe(3)
        // The letters alone bound the distance from below: a repeated letter counts as often as it is held.
        expect(editDistance("ab", "bb", 1)).toBe(1)
        expect(editDistance("aab", "abb", 2)).toBe(1)
        expect(editDistance("abc", "xyz", 2)).toBe(3)
      })
    )
  })
})
