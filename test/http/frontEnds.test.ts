import * as http from "node:http"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Task } from "../../src/domain/task/Task.ts"
import { SleepJob } from "../../src/engine/kinds/SleepJob.ts"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { ServerEngine, taskServerLayer } from "../engine/server.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"
import { runSql, signIn } from "../review/helpers.ts"
import { documents } from "../search/dsl/corpus.ts"

/**
 * Issue 23: the requests of the real Datashare client (11.5) and Prophecies front end (0.5.20) that Quarry answered
 * differently from the reference, and the proxy's error contract, each sent as the clients send it.
 */

/** LOCAL mode's default project, which its user may read and write. */
const project = "local-datashare"

const indexCorpus = Effect.flatMap(TestServer, (server) =>
  Effect.provide(
    Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)),
    server.context
  )
).pipe(Effect.orDie)

/** A request with any method, path and body as bytes on the wire (fetch normalises paths and refuses GET bodies). */
const raw = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resume) => {
      const outgoing = http.request(
        `${server.url}${path}`,
        { method, headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) } },
        (response) => {
          let text = ""
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => (text += chunk))
          response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, text })))
        }
      )
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end(body)
    })
  )

const search = (path: string, body: unknown) =>
  Effect.flatMap(
    request(`/api/index/search/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    (response) => Effect.map(bodyJson(response), (json) => ({ status: response.status, body: json as Record<string, unknown> }))
  )

/** Elasticsearch's error shape, with the status in the body equal to the answer's. */
const expectEsError = (status: number, body: unknown, expectedStatus: number, reason?: string) => {
  expect(status).toBe(expectedStatus)
  expect(body).toMatchObject({
    error: { root_cause: [{ type: expect.any(String), reason: expect.any(String) }], type: expect.any(String), reason: expect.any(String) },
    status: expectedStatus
  })
  if (reason !== undefined) expect((body as { error: { reason: string } }).error.reason).toBe(reason)
}

/** `{"bool":{"must":{"bool":…}}}` nested `levels` deep around match_all. */
const nestedBool = (levels: number) => {
  let query: unknown = { match_all: {} }
  for (let i = 0; i < levels; i++) query = { bool: { must: query } }
  return query
}

/**
 * The Starred filter's body as the Datashare client builds it: FilterText.body (a `match` on type Document, a terms
 * aggregation named and keyed by the filter's key `_id`, with a `bucket_truncate` bucket_sort of the page), the
 * filter panel's aggregation options (size = next offset, order by count) and, when the filter is contextualised,
 * the search's query added by searchFilter; size 0.
 */
const starredBody = {
  query: { match: { type: "Document" } },
  aggs: {
    _id: { terms: { field: "_id", size: 8, order: { _count: "desc" } }, aggs: { bucket_truncate: { bucket_sort: { size: 8, from: 0 } } } }
  },
  size: 0
}
const starredContextualisedBody = {
  query: {
    bool: {
      must: [
        { match: { type: "Document" } },
        { match_all: {} },
        { bool: { should: [{ query_string: { query: "*", default_field: "*" } }] } }
      ]
    }
  },
  aggs: {
    _id: { terms: { field: "_id", size: 8, order: { _count: "desc" } }, aggs: { bucket_truncate: { bucket_sort: { size: 8, from: 0 } } } }
  },
  size: 0
}

const submitSleep = Effect.flatMap(ServerEngine, (engine) => engine.submit(SleepJob, { steps: 200, stepMillis: 50 }, { userId: "local" }))

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const skipped = skip ? ` (skipped: ${postgresSkipReason})` : ""

  describe.skipIf(skip)(`issue 23 requests in LOCAL mode on ${database}${skipped}`, () => {
    layer(taskServerLayer({ database }), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("the Starred filter's aggregation answers one bucket per document id, as Elasticsearch 7", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          const ids = documents.map((document) => document.id).sort()
          const bucketsOf = (body: unknown) =>
            Effect.map(search(`${project}/_search`, body), (answer) => {
              expect(answer.status).toBe(200)
              return (answer.body as { aggregations: { _id: { buckets: ReadonlyArray<{ key: string; doc_count: number }> } } }).aggregations
                ._id.buckets
            })
          // Equal counts are ordered by key: the first eight ids (the corpus has fewer).
          for (const body of [starredBody, starredContextualisedBody])
            expect(yield* bucketsOf(body)).toEqual(ids.slice(0, 8).map((key) => ({ key, doc_count: 1 })))
          // A later page, as the panel asks for it with a smaller bucket size: bucket_sort cuts the buckets.
          const page = {
            ...starredBody,
            aggs: {
              _id: {
                terms: { field: "_id", size: 4, order: { _count: "desc" } },
                aggs: { bucket_truncate: { bucket_sort: { size: 2, from: 2 } } }
              }
            }
          }
          expect(yield* bucketsOf(page)).toEqual(ids.slice(2, 4).map((key) => ({ key, doc_count: 1 })))
        })
      )

      it.effect("max and min of a date field give value_as_string, at the top level and in buckets", () =>
        Effect.gen(function* () {
          const answer = yield* search(`${project}/_search`, {
            size: 0,
            aggs: {
              newest: { max: { field: "extractionDate" } },
              oldest: { min: { field: "extractionDate" } },
              types: { terms: { field: "contentType" }, aggs: { newest: { max: { field: "extractionDate" } } } }
            }
          })
          expect(answer.status).toBe(200)
          const aggregations = answer.body.aggregations as Record<
            string,
            { value: number; value_as_string: string; buckets: ReadonlyArray<{ newest: { value: number; value_as_string: string } }> }
          >
          expect(aggregations.newest!.value_as_string).toBe(new Date(aggregations.newest!.value).toISOString())
          expect(aggregations.oldest!.value_as_string).toBe(new Date(aggregations.oldest!.value).toISOString())
          expect(aggregations.types!.buckets.length).toBeGreaterThan(0)
          for (const bucket of aggregations.types!.buckets)
            expect(bucket.newest.value_as_string).toBe(new Date(bucket.newest.value).toISOString())
        })
      )

      it.effect("a bool nested past max_nested_depth (20), up to 2,000 levels, answers 400 in ES's shape before any SQL", () =>
        Effect.gen(function* () {
          expect((yield* search(`${project}/_search`, { query: nestedBool(19) })).status).toBe(200)
          const deeper = yield* search(`${project}/_search`, { query: nestedBool(25) })
          expectEsError(deeper.status, deeper.body, 400)
          expect(deeper.body).toMatchObject({
            error: {
              type: "x_content_parse_exception",
              caused_by: { type: "illegal_argument_exception", reason: expect.stringContaining("indices.query.bool.max_nested_depth") }
            }
          })
          // 2,000 levels are 4,000 levels of JSON: refused before parsing, as too deep for the server to parse.
          const deepest = yield* search(`${project}/_search`, { query: nestedBool(2_000) })
          expectEsError(deepest.status, deepest.body, 400)
          // A GET body travels as the source parameter: the same answer.
          const got = yield* raw("GET", `/api/index/search/${project}/_search`, JSON.stringify({ query: nestedBool(2_000) }), {
            "content-type": "application/json"
          })
          expectEsError(got.status, JSON.parse(got.text), 400)
        })
      )

      it.effect("every refusal of the proxy is in ES's shape: a bad index list, a bad path, a NUL in a parameter, DELETE", () =>
        Effect.gen(function* () {
          const badList = yield* raw("POST", "/api/index/search/bad%20name/_search", "{}", { "content-type": "application/json" })
          expectEsError(badList.status, JSON.parse(badList.text), 400, "Bad format for indices : 'bad name'")
          const short = yield* raw("POST", `/api/index/search/${project}`, "{}", { "content-type": "application/json" })
          expectEsError(short.status, JSON.parse(short.text), 400, `Invalid path: '${project}'`)
          const nul = yield* raw("GET", `/api/index/search/${project}/_search?q=a%00b`)
          expectEsError(nul.status, JSON.parse(nul.text), 400)
          const removed = yield* raw("DELETE", `/api/index/search/${project}/_doc/doc-fox`)
          expectEsError(removed.status, JSON.parse(removed.text), 405)
          const forbidden = yield* raw("POST", `/api/index/search/${project}/_delete_by_query`, "{}", {
            "content-type": "application/json"
          })
          expectEsError(forbidden.status, JSON.parse(forbidden.text), 403)
          const unknown = yield* search("no-such-index/_search", {})
          expectEsError(unknown.status, unknown.body, 404)
          // Index creation keeps the reference's legacy body.
          const created = yield* request("/api/index/bad%20name", { method: "PUT" })
          expect(yield* bodyJson(created)).toEqual({ error: "Bad format for indices : 'bad name'" })
        })
      )

      it.effect("searchContent with an empty query answers 404", () =>
        Effect.gen(function* () {
          expect((yield* request(`/api/${project}/documents/searchContent/doc-fox?query=`)).status).toBe(404)
        })
      )

      it.effect("findNames analyses the raw body whatever its content type; an empty body answers []", () =>
        Effect.gen(function* () {
          const text = "Write to someone@example.org today."
          for (const contentType of ["text/plain;charset=UTF-8", "application/json", "application/x-www-form-urlencoded"]) {
            const found = yield* request("/api/ner/findNames/EMAIL", {
              method: "POST",
              headers: { "content-type": contentType },
              body: text
            })
            expect(found.status).toBe(200)
            expect((yield* bodyJson(found)) as ReadonlyArray<{ mention: string }>).toMatchObject([{ mention: "someone@example.org" }])
          }
          const empty = yield* request("/api/ner/findNames/EMAIL", {
            method: "POST",
            headers: { "content-type": "text/plain;charset=UTF-8" },
            body: ""
          })
          expect(empty.status).toBe(200)
          expect(yield* bodyJson(empty)).toEqual([])
        })
      )

      it.effect("stopping a running task answers 200 with the JSON true", () =>
        Effect.gen(function* () {
          const task: Task = yield* submitSleep
          const stopped = yield* request(`/api/task/stop/${encodeURIComponent(task.name)}`, { method: "PUT" })
          expect(stopped.status).toBe(200)
          expect(stopped.headers.get("content-type")).toContain("application/json")
          expect(yield* bodyJson(stopped)).toBe(true)
        })
      )

      it.effect("the history filters by project names without refusing them", () =>
        Effect.gen(function* () {
          const event = { type: "SEARCH", name: "fox", uri: "/?q=fox", projectIds: [project] }
          expect(
            (yield* request("/api/users/me/history", {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(event)
            })).status
          ).toBe(200)
          const mine = yield* request(
            `/api/users/me/history?type=search&from=0&size=10&sort=modificationDate&desc=true&projects=${project}`
          )
          expect(mine.status).toBe(200)
          expect(yield* bodyJson(mine)).toMatchObject({ total: 1, items: [{ name: "fox" }] })
          const other = yield* request("/api/users/me/history?type=search&projects=someone-elses-project")
          expect(other.status).toBe(200)
          expect(yield* bodyJson(other)).toMatchObject({ total: 0, items: [] })
        })
      )

      it.effect(
        "the LOCAL user's lastLogin is set when the server starts; it is a superuser; settings name Quarry's sign-in and sign-out",
        () =>
          Effect.gen(function* () {
            const me = (yield* bodyJson(yield* request("/api/v1/users/me/"))) as {
              data: { attributes: { lastLogin: string | null; isSuperuser: boolean; isStaff: boolean } }
            }
            expect(me.data.attributes).toMatchObject({ isSuperuser: true, isStaff: true })
            expect(Date.parse(me.data.attributes.lastLogin ?? "")).toBeGreaterThan(Date.now() - 10 * 60_000)
            const settings = (yield* bodyJson(yield* request("/api/v1/settings/"))) as {
              data: ReadonlyArray<{ id: string; attributes: { value: string } }>
            }
            const value = (key: string) => settings.data.find((setting) => setting.id === key)?.attributes.value
            expect(value("loginUrl")).toBe("/login")
            expect(value("logoutUrl")).toBe("/auth/signout")
            const login = yield* request("/login")
            expect(login.status).toBe(200)
            expect(login.headers.get("content-type")).toContain("text/html")
          })
      )
    })
  })

  describe.skipIf(skip)(`issue 23 requests in SERVER mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }), { timeout: 60_000 })((it) => {
      it.effect("the proxy refuses callers without credentials in ES's shape", () =>
        Effect.gen(function* () {
          const anonymous = yield* raw("POST", `/api/index/search/${project}/_search`, "{}", { "content-type": "application/json" })
          expectEsError(anonymous.status, JSON.parse(anonymous.text), 401)
        })
      )

      it.effect(
        "review: wrong Basic credentials answer 403 Invalid username/password.; administrators are superusers; a user's actions newest first; sign-in sets lastLogin",
        () =>
          Effect.gen(function* () {
            const admin = yield* signIn("root", { admin: true })
            const user = yield* signIn("ann")
            const wrong = yield* request("/api/v1/users/me/", { headers: { authorization: basic("ann", "wrong") } })
            expect(wrong.status).toBe(403)
            expect(yield* bodyJson(wrong)).toMatchObject({ errors: [{ status: "403", detail: "Invalid username/password." }] })

            const meOf = (login: string) =>
              Effect.flatMap(request("/api/v1/users/me/", { headers: { authorization: basic(login, "pw") } }), bodyJson) as Effect.Effect<{
                data: { attributes: { isSuperuser: boolean; lastLogin: string | null } }
              }>
            expect((yield* meOf("root")).data.attributes.isSuperuser).toBe(true)
            expect((yield* meOf("ann")).data.attributes.isSuperuser).toBe(false)

            // The sign-in form records the sign-in.
            yield* addUser("bea", "pw")
            const form = yield* request("/auth/signin", {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: "login=bea&password=pw",
              redirect: "manual"
            })
            expect(form.status).toBe(303)
            const [bea] = yield* runSql(
              (sql) => sql<{ lastLogin: Date | null }>`SELECT last_login AS "lastLogin" FROM users WHERE login = 'bea'`
            )
            expect(bea?.lastLogin).not.toBeNull()

            yield* runSql(
              (sql) => sql`INSERT INTO review_actions (verb, actor_id, timestamp) VALUES
            ('older', ${user.id}, now() - interval '2 hours'), ('newer', ${user.id}, now() - interval '1 hour'),
            ('someone else', ${admin.id}, now()), ('hidden', ${user.id}, now())`
            )
            yield* runSql((sql) => sql`UPDATE review_actions SET public = false WHERE verb = 'hidden'`)
            for (const path of [`/api/v1/users/${user.id}/relationships/actions/`, `/api/v1/users/ann/actions/`]) {
              const actions = yield* request(path, { headers: { authorization: basic("root", "pw") } })
              expect(actions.status).toBe(200)
              const body = (yield* bodyJson(actions)) as { data: ReadonlyArray<{ type: string; attributes: { verb: string } }> }
              expect(body.data.map((action) => [action.type, action.attributes.verb])).toEqual([
                ["Action", "newer"],
                ["Action", "older"]
              ])
            }
            expect(
              (yield* request("/api/v1/users/999999/relationships/actions/", { headers: { authorization: basic("root", "pw") } })).status
            ).toBe(404)
          })
      )

      it.effect("a user's history may be read for any project name: only writes check projects", () =>
        Effect.gen(function* () {
          yield* addUser("cy", "pw", { projects: ["granted"] })
          const read = yield* request("/api/users/me/history?type=document&projects=granted,not-granted", {
            headers: { authorization: basic("cy", "pw") }
          })
          expect(read.status).toBe(200)
          expect(yield* bodyJson(read)).toEqual({ items: [], total: 0 })
        })
      )

      it.effect("GET on the sign-out route signs out and redirects to the page", () =>
        Effect.gen(function* () {
          const out = yield* request("/auth/signout", { redirect: "manual" })
          expect(out.status).toBe(303)
          expect(out.headers.get("location")).toBe("/?signout")
        })
      )
    })
  })
}
