import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { eventually } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { shipsAndBank } from "../helpers/indexing.ts"
import { bodyJson, bodyText, request, TestServer, testServerLayer } from "../helpers/server.ts"

const project = "local-datashare"

/** Creates a batch search through the multipart endpoint; answers the response. */
const create = (fields: Readonly<Record<string, string | ReadonlyArray<string>>>, csv?: string, projects = project) => {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) {
    for (const item of typeof value === "string" ? [value] : value) form.append(name, item)
  }
  if (csv !== undefined) form.append("csvFile", new Blob([csv], { type: "text/csv" }), "queries.csv")
  return request(`/api/batch/search/${projects}`, { method: "POST", body: form })
}

const postJson = (path: string, body: unknown, method = "POST") =>
  request(path, { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } })

interface BatchRecord {
  readonly uuid: string
  readonly state: string
  readonly nbQueries: number
  readonly nbResults: number
  readonly queries: Readonly<Record<string, number>>
  readonly errorMessage: string | null
  readonly errorQuery: string | null
}

const read = (uuid: string, withQueries = true) =>
  Effect.flatMap(request(`/api/batch/search/${uuid}?withQueries=${withQueries}`), bodyJson).pipe(Effect.map((body) => body as BatchRecord))

/** The batch search once it has run (SUCCESS or FAILURE). */
const finished = (uuid: string) =>
  eventually(read(uuid), (record) => record.state === "SUCCESS" || record.state === "FAILURE", "60 seconds")

const createAndRun = (fields: Readonly<Record<string, string | ReadonlyArray<string>>>, csv: string) =>
  Effect.gen(function* () {
    const response = yield* create(fields, csv)
    expect(response.status).toBe(200)
    const uuid = yield* bodyText(response)
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/)
    return yield* finished(uuid)
  })

const runSql = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), server.context)).pipe(Effect.orDie)

const corpus = shipsAndBank(project)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`batch searches on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("runs every query of the CSV in order and stores each query's documents", () =>
        Effect.gen(function* () {
          const documents = yield* corpus
          const tankers = documents.filter((document) => document.content.includes("tanker")).map((document) => document.id)
          // A BOM, CRLF line ends, a one-character line, a blank line and a duplicate.
          const record = yield* createAndRun(
            { name: "ships", description: "vessels" },
            "\uFEFFtanker\r\noffshore\r\nx\r\n\r\ntanker\r\nnothingmatches\r\n"
          )
          expect(record).toMatchObject({ state: "SUCCESS", nbQueries: 3, nbResults: 4, errorMessage: null, errorQuery: null })
          expect(record.queries).toEqual({ tanker: 2, offshore: 2, nothingmatches: 0 })

          const rows = (yield* Effect.flatMap(
            postJson(`/api/batch/search/result/${record.uuid}`, { from: 0, size: 0 }),
            bodyJson
          )) as ReadonlyArray<Record<string, unknown>>
          expect(rows.map((row) => row.query)).toEqual(["tanker", "tanker", "offshore", "offshore"])
          expect(
            rows
              .filter((row) => row.query === "tanker")
              .map((row) => row.documentId)
              .sort()
          ).toEqual([...tankers].sort())
          expect(rows.map((row) => row.documentNumber)).toEqual([0, 1, 0, 1])
          expect(rows[0]).toMatchObject({ project, rootId: rows[0]!.documentId, contentType: "text/plain", creationDate: null })

          const page = (yield* Effect.flatMap(
            postJson(`/api/batch/search/result/${record.uuid}`, { from: 1, size: 2, queries: ["offshore"] }),
            bodyJson
          )) as ReadonlyArray<Record<string, unknown>>
          expect(page.map((row) => [row.query, row.documentNumber])).toEqual([["offshore", 1]])
          const sorted = (yield* Effect.flatMap(
            postJson(`/api/batch/search/result/${record.uuid}`, { from: 0, size: 0, sort: "doc_path", order: "desc" }),
            bodyJson
          )) as ReadonlyArray<{ documentPath: string }>
          expect(sorted.map((row) => row.documentPath)).toEqual(
            sorted
              .map((row) => row.documentPath)
              .sort()
              .reverse()
          )
          const badSort = yield* postJson(`/api/batch/search/result/${record.uuid}`, { from: 0, size: 0, sort: "rank" })
          expect(badSort.status).toBe(400)
        })
      )

      it.effect("builds queries as the reference does: phrases, fuzziness, file types and folders", () =>
        Effect.gen(function* () {
          yield* corpus
          const phrase = yield* createAndRun({ name: "phrase", phrase_matches: "true" }, "left the harbour\ntanker carried\n")
          expect(phrase.queries).toEqual({ "left the harbour": 1, "tanker carried": 0 })
          const fuzzy = yield* createAndRun({ name: "fuzzy", fuzziness: "1" }, "tankar\n")
          expect(fuzzy.queries).toEqual({ tankar: 2 })
          const typed = yield* createAndRun({ name: "typed", fileTypes: ["application/pdf"] }, "tanker\n")
          expect(typed.queries).toEqual({ tanker: 0 })
          const server = yield* TestServer
          const inFolder = yield* createAndRun({ name: "folder", paths: [server.workDir] }, "tanker\n")
          expect(inFolder.queries).toEqual({ tanker: 2 })
          const elsewhere = yield* createAndRun({ name: "elsewhere", paths: ["/nowhere"] }, "tanker\n")
          expect(elsewhere.queries).toEqual({ tanker: 0 })
          // A spreadsheet's quoted cell: """Trust One""" is the phrase "Trust One".
          const quoted = yield* createAndRun({ name: "quoted" }, '"""Trust One"""\n')
          expect(quoted.queries).toEqual({ '"Trust One"': 1 })
        })
      )

      it.effect("records the failing query and keeps the results before it", () =>
        Effect.gen(function* () {
          yield* corpus
          const record = yield* createAndRun({ name: "broken" }, "tanker\nAND (\ncargo\n")
          expect(record.state).toBe("FAILURE")
          expect(record.errorQuery).toBe("AND (")
          expect(record.errorMessage).toMatch(/^SearchException: query='AND \(' message='.+'$/)
          expect(record.queries).toEqual({ tanker: 2, "AND (": 0, cargo: 0 })
          expect(record.nbResults).toBe(2)
        })
      )

      it.effect("refuses a form without name or csvFile or with NUL characters (400) and 60 000 queries (413), accepts 59 999", () =>
        Effect.gen(function* () {
          // The project's index must exist for the accepted batch search to run until it is stopped.
          yield* corpus
          expect((yield* create({ description: "no name" }, "tanker\n")).status).toBe(400)
          expect((yield* create({ name: "no file" })).status).toBe(400)
          expect((yield* create({ name: "nothing left" }, "a\nb\n")).status).toBe(400)
          const withNul = yield* create({ name: "binary" }, "tanker\nbank\u0000note\n")
          expect(withNul.status).toBe(400)
          expect(yield* bodyJson(withNul)).toEqual({ error: "NUL characters are not supported" })
          const lines = (count: number) => Array.from({ length: count }, (_, i) => `query number ${i}`).join("\n")
          expect((yield* create({ name: "too many" }, lines(60_000))).status).toBe(413)
          const accepted = yield* create({ name: "just enough" }, lines(59_999))
          expect(accepted.status).toBe(200)
          const uuid = yield* bodyText(accepted)
          expect((yield* read(uuid, false)).nbQueries).toBe(59_999)
          const queries = yield* Effect.flatMap(request(`/api/batch/search/${uuid}/queries?from=10&size=2`), bodyText)
          expect(queries).toBe('{"query number 10":0,"query number 11":0}')
          // Stopping its task ends the batch search, which can then be deleted.
          const stopped = yield* request(`/api/task/stop/org.icij.datashare.tasks.BatchSearchRunner@${uuid}`, { method: "PUT" })
          expect(stopped.status).toBe(200)
          expect(yield* finished(uuid)).toMatchObject({ state: "FAILURE", errorMessage: "the batch search was stopped" })
          expect((yield* request(`/api/batch/search/${uuid}`, { method: "DELETE" })).status).toBe(204)
          expect((yield* request(`/api/batch/search/${uuid}`)).status).toBe(404)
        })
      )

      it.effect("lists the queries as JSON or CSV, filtered, ordered, capped by result count; an unknown orderBy is a 500", () =>
        Effect.gen(function* () {
          yield* corpus
          const { uuid } = yield* createAndRun({ name: "listing" }, "tanker\nbank\nnothingmatches\n")
          const queries = (parameters: string) => Effect.flatMap(request(`/api/batch/search/${uuid}/queries${parameters}`), bodyText)
          expect(yield* queries("")).toBe('{"tanker":2,"bank":1,"nothingmatches":0}')
          expect(yield* queries("?orderBy=query")).toBe('{"bank":1,"nothingmatches":0,"tanker":2}')
          expect(yield* queries("?search=an")).toBe('{"tanker":2,"bank":1}')
          expect(yield* queries("?maxResult=1")).toBe('{"bank":1,"nothingmatches":0}')
          expect(yield* queries("?maxResults=0")).toBe('{"nothingmatches":0}')
          const csv = yield* request(`/api/batch/search/${uuid}/queries?format=csv`)
          expect(csv.headers.get("content-disposition")).toBe(`attachment;filename="${uuid}-queries.csv"`)
          expect(yield* bodyText(csv)).toBe("tanker\nbank\nnothingmatches")
          expect((yield* request(`/api/batch/search/${uuid}/queries?orderBy=nope`)).status).toBe(500)
          expect((yield* request(`/api/batch/search/${uuid}/queries?from=-1`)).status).toBe(400)
          expect(yield* Effect.flatMap(request(`/api/batch/search/unknown/queries`), bodyText)).toBe("{}")
        })
      )

      it.effect("exports the results as the reference's CSV", () =>
        Effect.gen(function* () {
          const documents = yield* corpus
          const bank = documents.find((document) => document.content.includes("bank"))!
          const { uuid } = yield* createAndRun({ name: "export" }, "payment\n")
          const host = new URL((yield* TestServer).url).host
          const response = yield* request(`/api/batch/search/result/csv/${uuid}`)
          expect(response.headers.get("content-type")).toBe("text/csv;charset=UTF-8")
          expect(response.headers.get("content-disposition")).toBe(`attachment;filename="${uuid}.csv"`)
          expect(yield* bodyText(response)).toBe(
            '"query", "documentUrl", "documentId","rootId","contentType","contentLength","documentPath","creationDate","documentNumber"\n' +
              `"payment","${host}/#/d/${project}/${bank.id}/${bank.id}","${bank.id}","${bank.id}","text/plain",` +
              `"${bank.contentLength}","${bank.path}","null","0"\n`
          )
        })
      )

      it.effect("lists with the visibility rule, filters with a total, publishes, copies and deletes", () =>
        Effect.gen(function* () {
          yield* corpus
          yield* request("/api/batch/search", { method: "DELETE" })
          const first = yield* createAndRun({ name: "alpha", description: "first" }, "tanker\n")
          const second = yield* createAndRun({ name: "beta", description: "second" }, "bank\n")
          // Another user's unpublished batch search, and one on a project the caller may not use, stay hidden.
          yield* runSql(
            (sql) =>
              sql`INSERT INTO batch_searches (uuid, name, user_id, state) VALUES ('00000000-0000-0000-0000-000000000001', 'theirs', 'someone', 'SUCCESS')`
          )
          const list = (yield* Effect.flatMap(request("/api/batch/search"), bodyJson)) as ReadonlyArray<{
            uuid: string
            name: string
            user: { id: string }
            projects: ReadonlyArray<{ name: string }>
          }>
          expect(list.map((item) => item.name)).toEqual(["beta", "alpha"])
          expect(list[0]).toMatchObject({ user: { id: "local", details: {} }, projects: [{ name: project }] })

          const filtered = yield* Effect.flatMap(
            postJson("/api/batch/search", { from: 0, size: 1, sort: "name", order: "asc", query: "*" }),
            bodyJson
          )
          expect(filtered).toMatchObject({ total: 2, items: [{ name: "alpha" }] })
          expect(yield* Effect.flatMap(postJson("/api/batch/search", { query: "second", field: "description" }), bodyJson)).toMatchObject({
            total: 1,
            items: [{ name: "beta" }]
          })
          expect((yield* postJson("/api/batch/search", { sort: "uuid; DROP TABLE users" })).status).toBe(400)

          expect((yield* postJson(`/api/batch/search/${first.uuid}`, { data: { published: true } }, "PATCH")).status).toBe(200)
          expect(yield* Effect.flatMap(postJson("/api/batch/search", { publishState: "1" }), bodyJson)).toMatchObject({
            total: 1,
            items: [{ name: "alpha" }]
          })
          expect(
            (yield* postJson("/api/batch/search/00000000-0000-0000-0000-000000000001", { data: { published: true } }, "PATCH")).status
          ).toBe(404)
          expect((yield* request("/api/batch/search/00000000-0000-0000-0000-000000000001")).status).toBe(404)

          const copy = yield* postJson(`/api/batch/search/copy/${first.uuid}`, { name: "alpha again" })
          expect(copy.status).toBe(200)
          const copied = yield* finished(yield* bodyText(copy))
          expect(copied).toMatchObject({ state: "SUCCESS", queries: { tanker: 2 } })
          expect((yield* postJson("/api/batch/search/copy/unknown", {})).status).toBe(404)

          expect((yield* request(`/api/batch/search/${second.uuid}`, { method: "DELETE" })).status).toBe(204)
          expect((yield* request(`/api/batch/search/${second.uuid}`, { method: "DELETE" })).status).toBe(204)
          expect((yield* request(`/api/batch/search/${second.uuid}`)).status).toBe(404)
          expect((yield* request("/api/batch/search", { method: "DELETE" })).status).toBe(204)
          expect(yield* Effect.flatMap(request("/api/batch/search"), bodyJson)).toEqual([])
          expect((yield* request("/api/batch/search", { method: "OPTIONS" })).headers.get("access-control-allow-methods")).toBe(
            "OPTIONS, DELETE"
          )
        })
      )
    })
  })
}
