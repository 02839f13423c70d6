import { createHash } from "node:crypto"
import type { Statement } from "@effect/sql"

type Fragment = Statement.Fragment
type Sql = Statement.Constructor

/**
 * The records a search reads, for a condition that looks beside the record it tests: their relation, their indices, and
 * where the tested record's row is when the relation is the documents' own (the union of record types has no row
 * place).
 */
export interface SearchedRecords {
  readonly relation: "document_records" | "search_records"
  readonly indices: ReadonlyArray<string>
  readonly rowPlace: Fragment | undefined
}

/** The alias of the records read beside the tested one. */
export const beside = "x"

/**
 * The relation of the documents' rows whose stored `column` holds one of `words`, as `holding` tests it on that column
 * of the alias `beside`: its name, the same wherever a statement asks for those rows (an MD5 of the words, as a word
 * may hold any letter, and an identifier is at most 63 bytes), and its definition.
 */
export const rowsHolding = (
  sql: Sql,
  records: SearchedRecords,
  column: string,
  words: ReadonlyArray<string>,
  holding: (columnBeside: Fragment) => Fragment
) =>
  [
    `rows_${column}_${createHash("md5").update(words.join(" "), "utf8").digest("hex")}`,
    sql`SELECT ${sql.literal(`${beside}.row_tid`)} FROM document_records ${sql.literal(beside)}
      WHERE ${sql.literal(`${beside}.project`)} IN ${sql.in(records.indices)} AND ${holding(sql.literal(`${beside}.${column}`))}`
  ] as const

/**
 * A condition on the tested record as the membership of its row among the rows of a relation the statement writes once
 * (see `Compiled.relations`), which the index fills: a hashed sub-plan. Eight fuzzy terms over the default fields
 * tested each match's tsvector once for each term's score and again in the OR of the terms, decompressing it each
 * time: 1,064,698 buffers for 16,858 matches of 20,000 documents, 15,244 with this.
 */
export const rowAmong = (sql: Sql, rowPlace: Fragment, relation: string) =>
  sql`${rowPlace} IN (SELECT row_tid FROM ${sql.literal(relation)})`

/**
 * A condition on a single-valued column as one of the values of the searched records it holds for (`columnBeside` is
 * the column for the alias `beside`), found once for the statement: `column = ANY(…)` is answered exactly by the
 * column's index. A condition the index serves in part (an edit distance behind a range of lengths) left the whole OR
 * of a query over several fields to be tested again on every match, which read the content's tsvector for each of its
 * terms. `IS NOT NULL` is implied by the index's answer, and drops the condition when planned where the relation has
 * no such values (documents' rows have no mention).
 */
export const valueAmong = (
  sql: Sql,
  records: SearchedRecords,
  column: Fragment,
  columnBeside: Fragment,
  condition: (value: Fragment) => Fragment
) =>
  sql`(${column} IS NOT NULL AND ${column} = ANY(ARRAY(SELECT DISTINCT ${columnBeside} FROM ${sql.literal(records.relation)} ${sql.literal(beside)}
    WHERE ${sql.literal(`${beside}.project`)} IN ${sql.in(records.indices)} AND ${condition(columnBeside)})))`
