import type { BatchSearchResultRow } from "./BatchSearch.ts"

/** A batch search holds fewer distinct queries than this (seed: a CSV of 60 000 lines or more is refused). */
export const maxQueries = 60_000

/**
 * `"""query one"""` → `"query one"`: spreadsheets export a cell holding quotes by doubling them and quoting the
 * cell, and the reference undoes that for lines holding `"""` when phrase matching is off.
 */
const unquoteCell = (line: string) => line.slice(1, -1).replace(/""/g, '"')

/** Queries of two characters or more, each once at its first position. */
export const usableQueries = (queries: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...new Set(queries.filter((query) => query.length >= 2))
]

/**
 * The queries of an uploaded CSV: one per line (LF or CRLF), a leading byte-order mark
 * ignored, lines under two characters dropped, duplicates kept once at their first position.
 */
export const parseQueries = (csv: string, phraseMatches: boolean): ReadonlyArray<string> => {
  const queries = new Set<string>()
  for (const raw of csv.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    if (raw.length < 2) continue
    queries.add(!phraseMatches && raw.includes('"""') ? unquoteCell(raw) : raw)
  }
  return [...queries]
}

/** The header of the results CSV, exactly as the reference writes it (spaces after the first two commas). */
export const resultsCsvHeader =
  '"query", "documentUrl", "documentId","rootId","contentType","contentLength","documentPath","creationDate","documentNumber"\n'

const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const twoDigits = (value: number) => String(value).padStart(2, "0")

/** A date as Java's `Date.toString()` prints it on a server in UTC: `Mon Jan 01 10:00:00 UTC 2024`. */
export const javaDate = (date: Date) =>
  `${days[date.getUTCDay()]} ${months[date.getUTCMonth()]} ${twoDigits(date.getUTCDate())} ` +
  `${twoDigits(date.getUTCHours())}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())} UTC ${date.getUTCFullYear()}`

/** Every value double-quoted (a quote inside is doubled, so that CSV readers get the value back). */
const quoted = (value: string | number | null) => `"${String(value).replace(/"/g, '""')}"`

/**
 * One line of the results CSV. `documentUrl` is `<host>/#/d/<projects>/<documentId>/<rootId>`, the front end's
 * document route; an unknown creation date is the text null.
 */
export const resultsCsvLine = (row: BatchSearchResultRow, host: string, projects: ReadonlyArray<string>) =>
  [
    row.query,
    `${host}/#/d/${projects.join(",")}/${row.docId}/${row.rootId}`,
    row.docId,
    row.rootId,
    row.contentType,
    row.contentLength,
    row.docPath,
    row.creationDate === null ? null : javaDate(row.creationDate),
    row.docNb
  ]
    .map(quoted)
    .join(",") + "\n"
