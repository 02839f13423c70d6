import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import { anyWordQuery, type Expansion, lookupExpansion } from "./Expansion.ts"
import type { Field } from "./Fields.ts"
import { rowAmong, rowsHolding, type SearchedRecords } from "./SearchedRecords.ts"
import { type Compiled, constantScore, falseCondition } from "./TextQueries.ts"

type Fragment = Statement.Fragment
type Sql = Statement.Constructor
type TextField = Extract<Field, { kind: "text" }>

/**
 * Words of an expansion per tsquery the index is asked for: GIN tests each document it finds against the whole
 * tsquery, so the 400 words of a leading wildcard found in 29,308 of 100,000 documents took 470 ms in the index scan,
 * and 31–40 ms as tsqueries of 32 words.
 */
const wordsPerIndexedQuery = 32

/**
 * A condition on the words of a text field (wildcards, regular expressions, fuzzy terms, ranges): the words the
 * search expanded it to through the index's lexicon (Expansion.ts), matched through the tsvector's index; else, on
 * a field without a lexicon, the predicate over each record's words.
 * Each tsquery is a sub-select, whose value the planner does not see: estimated from hundreds of words, a wildcard
 * seemed to match most documents, and the search read every document's tsvector instead of the index (8 s for the
 * wildcard above). Tested on one record, the words are one tsquery, so that the tsvector is read once; on documents'
 * rows, whose tsvector is stored out of the row, the record's row is looked for among the rows the index finds (a
 * relation of the statement, read once however many clauses test it), so that it is not read at all.
 */
export const expandedOr = (
  sql: Sql,
  field: TextField,
  expansion: Expansion | undefined,
  predicate: (lexeme: Fragment) => Fragment,
  records: SearchedRecords | undefined
) =>
  Effect.map(lookupExpansion(expansion), (found): Compiled => {
    if (found === undefined)
      return constantScore(sql, sql`EXISTS (SELECT 1 FROM unnest(${field.tsvector}) AS w WHERE ${predicate(sql.literal("w.lexeme"))})`)
    if (found.length === 0) return falseCondition(sql)
    const matches = (tsvector: Fragment, words: ReadonlyArray<string>) => sql`${tsvector} @@ (SELECT ${anyWordQuery(words)}::tsquery)`
    const pieces = (tsvector: Fragment) =>
      Array.from({ length: Math.ceil(found.length / wordsPerIndexedQuery) }, (_, index) =>
        matches(tsvector, found.slice(index * wordsPerIndexedQuery, (index + 1) * wordsPerIndexedQuery))
      )
    const onRecord = pieces(field.tsvector)
    const where = onRecord.length === 1 ? onRecord[0]! : sql`(${sql.or(onRecord)})`
    const stored = field.outOfRow
    if (records?.rowPlace !== undefined && stored !== undefined) {
      const rows = rowsHolding(sql, records, stored.column, found, (column) => sql`(${sql.or(pieces(column))})`)
      return { ...constantScore(sql, where), test: rowAmong(sql, records.rowPlace, rows[0]), relations: [rows] }
    }
    return onRecord.length === 1 ? constantScore(sql, where) : { ...constantScore(sql, where), test: matches(field.tsvector, found) }
  })
