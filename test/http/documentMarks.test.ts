import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { maxDocumentIds, maxTagRows, maxTags } from "../../src/domain/document/DocumentMarks.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { indexDocuments, indexedTags, query, send, signIn } from "../helpers/marks.ts"
import { bodyJson, bodyText, request, testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"

const local = "local-datashare"
const json = { accept: "application/json" }
const localUser = { id: "local", name: null, email: null, provider: "local", details: {} }

const tagRows = (project: string, ids: ReadonlyArray<string>) =>
  query<{ docId: string; label: string; userId: string }>(
    (sql) => sql`SELECT doc_id AS "docId", label, user_id AS "userId" FROM document_tags
      WHERE project = ${project} AND doc_id = ANY(${ids}::text[]) ORDER BY doc_id, label`
  )

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const skipped = skip ? ` (skipped: ${postgresSkipReason})` : ""

  describe.skipIf(skip)(`stars, tags and recommendations in LOCAL mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("star and unstar count the rows they change; starred lists ids per project and documents across projects", () =>
        Effect.gen(function* () {
          const [a, b, c] = yield* indexDocuments(local, 3, "star")
          const star = (ids: ReadonlyArray<string>) => send("POST", `/api/${local}/documents/batchUpdate/star`, ids)
          expect(yield* bodyJson(yield* star([a!, b!]))).toEqual({ result: 2 })
          expect(yield* bodyJson(yield* star([a!, b!, c!, c!]))).toEqual({ result: 1 })
          expect(yield* bodyJson(yield* star(["not-indexed"]))).toEqual({ result: 1 })
          expect(yield* bodyJson(yield* request(`/api/${local}/documents/starred`))).toEqual([a, b, "not-indexed", c].sort())
          const unstar = yield* send("POST", `/api/${local}/documents/batchUpdate/unstar`, [a, "unknown"])
          expect(yield* bodyJson(unstar)).toEqual({ result: 1 })
          expect(yield* bodyJson(yield* request(`/api/${local}/documents/starred`))).toEqual([b, "not-indexed", c].sort())

          // Across projects: full documents of the index; a star on an id the index does not hold is left out.
          const documents = (yield* bodyJson(yield* request("/api/documents/starred"))) as ReadonlyArray<Record<string, unknown>>
          expect(documents.map((document) => document.id)).toEqual([b, c].sort())
          expect(documents[0]).toMatchObject({
            path: expect.stringMatching(/^\/data\/local-datashare\/file-\d\.txt$/),
            dirname: "/data/local-datashare",
            projectId: local,
            contentType: "text/plain",
            rootDocument: documents[0]!.id,
            parentDocument: null,
            content_translated: [],
            creationDate: null
          })
        })
      )

      it.effect("PUT tags answers 201 then 200, writes the index's tags column at once, and untag mirrors it", () =>
        Effect.gen(function* () {
          const [a, b] = yield* indexDocuments(local, 2, "single")
          const created = yield* send("PUT", `/api/${local}/documents/tags/${a}`, ["urgent", "leak", "urgent"])
          expect(created.status).toBe(201)
          expect(yield* bodyText(created)).toBe("")
          expect(yield* indexedTags(local, a!)).toEqual(["urgent", "leak"])
          expect((yield* send("PUT", `/api/${local}/documents/tags/${a}`, ["leak"])).status).toBe(200)
          expect((yield* send("PUT", `/api/${local}/documents/tags/${a}?routing=${a}`, ["third"])).status).toBe(201)
          expect(yield* indexedTags(local, a!)).toEqual(["urgent", "leak", "third"])

          const tags = (yield* bodyJson(yield* request(`/api/${local}/documents/tags/${a}`))) as ReadonlyArray<Record<string, unknown>>
          expect(tags.map((tag) => tag.label).sort()).toEqual(["leak", "third", "urgent"])
          expect(tags[0]).toEqual({
            label: expect.any(String),
            creationDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
            user: localUser
          })
          expect(yield* bodyJson(yield* request(`/api/${local}/documents/tags/${b}`))).toEqual([])

          expect(yield* bodyJson(yield* request(`/api/${local}/documents/tagged/leak,nothing`))).toEqual([a])
          expect(yield* bodyJson(yield* request(`/api/${local}/documents/tagged/nothing`))).toEqual([])

          const untagged = yield* send("PUT", `/api/${local}/documents/untag/${a}`, ["leak", "never-there"])
          expect(untagged.status).toBe(201)
          expect(yield* indexedTags(local, a!)).toEqual(["urgent", "third"])
          expect((yield* send("PUT", `/api/${local}/documents/untag/${a}`, ["leak"])).status).toBe(200)
          expect(yield* bodyJson(yield* request(`/api/${local}/documents/tagged/leak`))).toEqual([])

          const preflight = yield* request(`/api/${local}/documents/tags/${a}`, { method: "OPTIONS" })
          expect(preflight.status).toBe(200)
          expect(preflight.headers.get("access-control-allow-methods")).toBe("OPTIONS, PUT")
          const untagPreflight = yield* request(`/api/${local}/documents/untag/${a}`, { method: "OPTIONS" })
          expect(untagPreflight.headers.get("access-control-allow-methods")).toBe("OPTIONS, PUT")
        })
      )

      it.effect("PUT tags and untag answer 404 for a document the index does not hold (or under another root)", () =>
        Effect.gen(function* () {
          const [a] = yield* indexDocuments(local, 1, "missing")
          const unknown = yield* send("PUT", `/api/${local}/documents/tags/${"f".repeat(64)}`, ["x"])
          expect(unknown.status).toBe(404)
          expect(yield* bodyJson(unknown)).toEqual({ error: expect.any(String) })
          expect((yield* send("PUT", `/api/${local}/documents/untag/${"f".repeat(64)}`, ["x"])).status).toBe(404)
          expect((yield* send("PUT", `/api/${local}/documents/tags/${a}?routing=another-root`, ["x"])).status).toBe(404)
          expect((yield* send("PUT", `/api/other-project/documents/tags/${a}`, ["x"])).status).toBe(403)
          expect(yield* tagRows(local, [a!])).toEqual([])
        })
      )

      it.effect("batch tag and untag answer 200, skip ids the index does not hold, and keep rows and index in step", () =>
        Effect.gen(function* () {
          const [a, b] = yield* indexDocuments(local, 2, "batch")
          const tagged = yield* send("POST", `/api/${local}/documents/batchUpdate/tag`, { docIds: [a, b, "ghost"], tags: ["t1", "t2"] })
          expect(tagged.status).toBe(200)
          expect(yield* bodyText(tagged)).toBe("")
          expect(yield* indexedTags(local, a!)).toEqual(["t1", "t2"])
          expect(yield* indexedTags(local, b!)).toEqual(["t1", "t2"])
          expect((yield* tagRows(local, [a!, b!, "ghost"])).map((row) => `${row.docId}:${row.label}:${row.userId}`)).toEqual([
            `${a}:t1:local`,
            `${a}:t2:local`,
            `${b}:t1:local`,
            `${b}:t2:local`
          ])
          const untagged = yield* send("POST", `/api/${local}/documents/batchUpdate/untag`, { docIds: [a], tags: ["t1"] })
          expect(untagged.status).toBe(200)
          expect(yield* indexedTags(local, a!)).toEqual(["t2"])
          expect(yield* indexedTags(local, b!)).toEqual(["t1", "t2"])
          expect(yield* bodyJson(yield* request(`/api/${local}/documents/tagged/t1`))).toEqual([b])
        })
      )

      it.effect("recommend counts new marks; recommendations list ids by user and aggregate users with counts", () =>
        Effect.gen(function* () {
          const project = "reco"
          const [a, b] = yield* indexDocuments(project, 2)
          yield* query((sql) => sql`INSERT INTO projects (id) VALUES (${project}) ON CONFLICT DO NOTHING`)
          const recommend = (ids: ReadonlyArray<string>) => send("POST", `/api/${project}/documents/batchUpdate/recommend`, ids)
          expect(yield* bodyJson(yield* recommend([a!, b!]))).toEqual({ result: 2 })
          expect(yield* bodyJson(yield* recommend([a!]))).toEqual({ result: 0 })
          expect(yield* bodyJson(yield* request(`/api/${project}/documents/recommendations?userids=local,nobody`))).toEqual([a, b].sort())
          expect(yield* bodyJson(yield* request(`/api/${project}/documents/recommendations?userids=nobody`))).toEqual([])
          expect(yield* bodyJson(yield* request(`/api/users/recommendations?project=${project}`))).toEqual({
            aggregates: [{ item: localUser, count: 2 }],
            totalCount: 2
          })
          expect(yield* bodyJson(yield* request(`/api/users/recommendationsby?project=${project}&docIds=${a},unknown`))).toEqual({
            aggregates: [{ item: localUser, count: 1 }],
            totalCount: 1
          })
          expect(yield* bodyJson(yield* send("POST", `/api/${project}/documents/batchUpdate/unrecommend`, [a, "unknown"]))).toEqual({
            result: 1
          })
          expect(yield* bodyJson(yield* request(`/api/users/recommendations?project=${project}`))).toEqual({
            aggregates: [{ item: localUser, count: 1 }],
            totalCount: 1
          })
        })
      )

      it.effect(
        "bad input answers 400 (malformed JSON, wrong types, empty or long items, missing parameters) and 413 (oversized lists)",
        () =>
          Effect.gen(function* () {
            const [a] = yield* indexDocuments(local, 1, "bad")
            const base = `/api/${local}/documents`
            const cases: ReadonlyArray<readonly [string, string, unknown, number]> = [
              ["POST", `${base}/batchUpdate/star`, "[not json", 400],
              ["POST", `${base}/batchUpdate/star`, { docIds: [a] }, 400],
              ["POST", `${base}/batchUpdate/star`, [1, 2], 400],
              ["POST", `${base}/batchUpdate/unstar`, [""], 400],
              ["POST", `${base}/batchUpdate/recommend`, ["x".repeat(97)], 400],
              ["POST", `${base}/batchUpdate/unrecommend`, "null", 400],
              ["POST", `${base}/batchUpdate/star`, Array.from({ length: maxDocumentIds + 1 }, (_, n) => `id-${n}`), 413],
              ["POST", `${base}/batchUpdate/tag`, { docIds: [a] }, 400],
              ["POST", `${base}/batchUpdate/tag`, { docIds: a, tags: ["x"] }, 400],
              ["POST", `${base}/batchUpdate/tag`, { docIds: [a], tags: ["a,b"] }, 400],
              ["POST", `${base}/batchUpdate/tag`, { docIds: [a], tags: ["x".repeat(65)] }, 400],
              ["POST", `${base}/batchUpdate/tag`, { docIds: [a], tags: Array.from({ length: maxTags + 1 }, (_, n) => `t${n}`) }, 413],
              ["POST", `${base}/batchUpdate/untag`, { docIds: [a], tags: [7] }, 400],
              [
                "POST",
                `${base}/batchUpdate/tag`,
                {
                  docIds: Array.from({ length: maxTagRows / maxTags + 1 }, (_, n) => `id-${n}`),
                  tags: Array.from({ length: maxTags }, (_, n) => `t${n}`)
                },
                413
              ],
              ["PUT", `${base}/tags/${a}`, { tags: ["x"] }, 400],
              ["PUT", `${base}/tags/${a}`, [""], 400],
              ["PUT", `${base}/untag/${a}`, [true], 400]
            ]
            for (const [method, path, body, status] of cases) {
              const response = yield* send(method, path, body)
              expect({ method, path, status: response.status }).toEqual({ method, path, status })
              expect(yield* bodyJson(response)).toEqual({ error: expect.any(String) })
            }
            expect(yield* indexedTags(local, a!)).toEqual([])
            for (const path of [
              `${base}/recommendations`,
              `${base}/recommendations?userids=`,
              "/api/users/recommendations",
              `/api/users/recommendationsby?project=${local}`
            ]) {
              const response = yield* request(path, { headers: json })
              expect({ path, status: response.status }).toEqual({ path, status: 400 })
            }
          })
      )

      it.effect("50 concurrent tagging requests on the same documents leave exactly the expected rows and index tags", () =>
        Effect.gen(function* () {
          const ids = yield* indexDocuments(local, 5, "concurrent")
          const labels = Array.from({ length: 10 }, (_, n) => `t${n}`)
          const batches = yield* Effect.forEach(
            Array.from({ length: 50 }, (_, n) => n),
            (n) =>
              send("POST", `/api/${local}/documents/batchUpdate/tag`, {
                docIds: n % 2 === 0 ? ids : [...ids].reverse(),
                tags: ["shared", labels[n % 10]]
              }),
            { concurrency: "unbounded" }
          )
          expect(batches.map((response) => response.status)).toEqual(Array(50).fill(200))
          const rows = yield* tagRows(local, ids)
          expect(rows.length).toBe(5 * 11)
          expect(new Set(rows.map((row) => `${row.docId}:${row.label}`)).size).toBe(55)
          for (const id of ids) expect([...(yield* indexedTags(local, id))!].sort()).toEqual(["shared", ...labels].sort())

          // The same single tag from 50 requests at once: exactly one of them creates it.
          const singles = yield* Effect.forEach(
            Array.from({ length: 50 }),
            () => send("PUT", `/api/${local}/documents/tags/${ids[0]}`, ["solo"]),
            {
              concurrency: "unbounded"
            }
          )
          expect(singles.filter((response) => response.status === 201).length).toBe(1)
          expect(singles.filter((response) => response.status === 200).length).toBe(49)
          expect((yield* tagRows(local, [ids[0]!])).filter((row) => row.label === "solo").length).toBe(1)
          expect((yield* indexedTags(local, ids[0]!))!.filter((label) => label === "solo")).toEqual(["solo"])
        })
      )
    })
  })
}

describe("stars, tags and recommendations in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("answer 403 on every project-scoped endpoint for a project outside the caller's, and keep stars per user", () =>
      Effect.gen(function* () {
        yield* addUser("alice", "pw", { projects: ["granted"] })
        yield* addUser("bob", "pw", { projects: ["granted"] })
        const [a] = yield* indexDocuments("secret", 1)
        const [g] = yield* indexDocuments("granted", 1)
        const alice = yield* signIn("alice", "pw")
        const secret = "/api/secret/documents"
        const refused: ReadonlyArray<readonly [string, string, unknown]> = [
          ["POST", `${secret}/batchUpdate/star`, [a]],
          ["POST", `${secret}/batchUpdate/unstar`, [a]],
          ["GET", `${secret}/starred`, undefined],
          ["GET", `/api/secret/documents/tagged/x`, undefined],
          ["PUT", `${secret}/tags/${a}`, ["x"]],
          ["GET", `${secret}/tags/${a}`, undefined],
          ["PUT", `${secret}/untag/${a}`, ["x"]],
          ["POST", `${secret}/batchUpdate/tag`, { docIds: [a], tags: ["x"] }],
          ["POST", `${secret}/batchUpdate/untag`, { docIds: [a], tags: ["x"] }],
          ["POST", `${secret}/batchUpdate/recommend`, [a]],
          ["POST", `${secret}/batchUpdate/unrecommend`, [a]],
          ["GET", `${secret}/recommendations?userids=alice`, undefined],
          ["GET", "/api/users/recommendations?project=secret", undefined],
          ["GET", `/api/users/recommendationsby?project=secret&docIds=${a}`, undefined]
        ]
        for (const [method, path, body] of refused) {
          const response = body === undefined ? yield* request(path, { method, headers: alice }) : yield* send(method, path, body, alice)
          expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 })
        }
        expect(yield* indexedTags("secret", a!)).toEqual([])
        expect(yield* query((sql) => sql`SELECT 1 FROM document_stars UNION ALL SELECT 1 FROM document_recommendations`)).toEqual([])

        expect(yield* bodyJson(yield* send("POST", "/api/granted/documents/batchUpdate/star", [g], alice))).toEqual({ result: 1 })
        const bob = yield* signIn("bob", "pw")
        expect(yield* bodyJson(yield* request("/api/granted/documents/starred", { headers: bob }))).toEqual([])
        expect(yield* bodyJson(yield* request("/api/granted/documents/starred", { headers: alice }))).toEqual([g])
        expect(yield* bodyJson(yield* send("POST", "/api/granted/documents/batchUpdate/recommend", [g], bob))).toEqual({ result: 1 })
        const aggregate = yield* bodyJson(yield* request("/api/users/recommendations?project=granted", { headers: alice }))
        expect(aggregate).toEqual({
          aggregates: [{ item: { id: "bob", name: null, email: null, provider: "local", details: {} }, count: 1 }],
          totalCount: 1
        })
      })
    )
  })
})
