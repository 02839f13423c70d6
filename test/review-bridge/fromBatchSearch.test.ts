import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { eventually } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"
import { api, create, firstError, resource, runSql } from "../review/helpers.ts"
import {
  fromBatchSearch,
  fromBatchSearchDocument,
  indexCorpus,
  project,
  reviewSetup,
  runBatchSearch,
  signInWith,
  storedHits,
  taskRecords
} from "./helpers.ts"

/** Queries over the fixture corpus: the e-mail and its attachment, the UTF-8 text, the JSON record, no match. */
const queries = ["contract", "offshore", "Harbour", "nothingmatches"]

const pairs = (rows: ReadonlyArray<{ readonly query: string; readonly docId: string }>) =>
  rows.map((row) => `${row.query} ${row.docId}`).sort()

/** The checker's review of a record, answered with a choice through the review API. */
const choose = (checker: { readonly id: number; readonly cookie: string; readonly login: string }, record: number, choice: number) =>
  Effect.gen(function* () {
    const [review] = yield* runSql(
      (sql) => sql<{ id: number }>`
      SELECT id FROM review_task_record_reviews WHERE task_record_id = ${record} AND checker_id = ${checker.id}`
    )
    const answer = yield* api(checker, "PUT", `/api/v1/task-record-reviews/${review!.id}/`, {
      data: {
        type: "TaskRecordReview",
        id: String(review!.id),
        relationships: { choice: { data: { type: "Choice", id: String(choice) } } }
      }
    })
    expect(answer.status).toBe(200)
  })

const tagFacet = (cookie: string) =>
  Effect.gen(function* () {
    const response = yield* request(`/api/index/search/${project}/_search`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ size: 0, aggs: { tags: { terms: { field: "tags" } } } })
    })
    expect(response.status).toBe(200)
    const body = (yield* bodyJson(response)) as { aggregations: { tags: { buckets: ReadonlyArray<{ key: string; doc_count: number }> } } }
    return body.aggregations.tags.buckets
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`batch searches to review tasks on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }), { timeout: 180_000, excludeTestServices: true })((it) => {
      it.effect("makes a task of exactly the hits, then adds only the new ones when run again", () =>
        Effect.gen(function* () {
          const documents = yield* indexCorpus
          const setup = yield* reviewSetup("a")
          const uuid = yield* runBatchSearch(setup.admin, queries)
          const hits = yield* storedHits(uuid)
          // The e-mail and its attachment carry "contract": a child document routed by its root.
          expect(hits.filter((hit) => hit.query === "contract").length).toBe(2)
          expect(hits.some((hit) => hit.docId !== hit.rootId)).toBe(true)
          expect(new Set(hits.map((hit) => hit.query))).toEqual(new Set(["contract", "offshore", "Harbour"]))

          const first = yield* fromBatchSearch(
            setup.admin,
            fromBatchSearchDocument(setup, uuid, { name: "Contracts", queries: ["contract"] })
          )
          expect(first.status).toBe(201)
          const task = Number(resource(first).id)
          expect(resource(first).attributes).toMatchObject({ name: "Contracts", rounds: 2, automaticRoundAttributions: true })
          expect(first.body.meta).toEqual({ records: 2, skipped: 0 })
          const records = yield* taskRecords(task)
          expect(pairs(records.map((record) => ({ query: record.originalValue, docId: record.uid })))).toEqual(
            pairs(hits.filter((hit) => hit.query === "contract"))
          )
          for (const record of records) {
            const hit = hits.find((candidate) => candidate.docId === record.uid)!
            const document = documents.find((candidate) => candidate.id === record.uid)!
            expect(record.predictedValue).toContain("<em>contract</em>")
            expect(record.metadata).toEqual({
              path: document.path,
              contentType: document.contentType,
              project,
              batchSearch: uuid,
              query: "contract"
            })
            expect(record.link).toBe(`/#/d/${project}/${record.uid}/${hit.rootId}`)
          }
          // The usual round attribution: alice round 1, bob round 2, on every record.
          const reviews = yield* runSql(
            (sql) => sql<{ checkerId: number; round: number }>`
            SELECT v.checker_id AS "checkerId", v.round FROM review_task_record_reviews v JOIN review_task_records r ON r.id = v.task_record_id
            WHERE r.task_id = ${task} ORDER BY r.id, v.round`
          )
          expect(reviews.map((review) => [review.checkerId, review.round])).toEqual(
            records.flatMap(() => [
              [setup.alice.id, 1],
              [setup.bob.id, 2]
            ])
          )

          const second = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, {}, task))
          expect(second.status).toBe(200)
          expect(second.body.meta).toEqual({ records: hits.length - 2, skipped: 2 })
          expect(pairs((yield* taskRecords(task)).map((record) => ({ query: record.originalValue, docId: record.uid })))).toEqual(
            pairs(hits)
          )
          const third = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, {}, task))
          expect(third.body.meta).toEqual({ records: 0, skipped: hits.length })
          expect((yield* taskRecords(task)).length).toBe(hits.length)
          const { data: newTask } = fromBatchSearchDocument(setup, uuid, { name: "Renamed" })
          const conflicting = yield* fromBatchSearch(setup.admin, { data: { ...newTask, id: String(task) } })
          expect(conflicting.status).toBe(400)
          expect(JSON.stringify(conflicting.body.errors)).toContain("name, project, choiceGroup, checkers describe a new task")

          const capped = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, { maxHitsPerQuery: 1 }))
          expect(capped.status).toBe(201)
          expect((yield* taskRecords(Number(resource(capped).id))).map((record) => record.originalValue)).toEqual([
            "contract",
            "offshore",
            "Harbour"
          ])
        })
      )

      it.effect("skips documents already reviewed in the project, and refuses unknown queries and missing fields", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          const setup = yield* reviewSetup("b")
          const uuid = yield* runBatchSearch(setup.admin, queries)
          const first = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, { queries: ["Harbour"] }))
          const [reviewed, ...others] = yield* taskRecords(Number(resource(first).id))
          // One finished review is enough to call a document reviewed; a pending one is not.
          yield* choose(setup.alice, reviewed!.id, setup.correct)
          const again = yield* fromBatchSearch(
            setup.admin,
            fromBatchSearchDocument(setup, uuid, { queries: ["Harbour"], skipReviewed: true })
          )
          expect(again.status).toBe(201)
          expect(again.body.meta).toEqual({ records: others.length, skipped: 1 })
          expect((yield* taskRecords(Number(resource(again).id))).map((record) => record.uid)).toEqual(others.map((record) => record.uid))

          const unknown = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, { queries: ["tanker"] }))
          expect(unknown.status).toBe(400)
          expect(firstError(unknown)).toMatchObject({ source: { pointer: "/data/attributes/queries" } })
          const noProject = yield* fromBatchSearch(setup.admin, { data: { type: "Task", attributes: { batchSearch: uuid } } })
          expect(noProject.status).toBe(400)
          const missing = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, "00000000-0000-0000-0000-000000000000"))
          expect(missing.status).toBe(404)
        })
      )

      it.effect("leaves nothing behind when a write fails half-way", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          const setup = yield* reviewSetup("c")
          const uuid = yield* runBatchSearch(setup.admin, queries)
          const count = runSql(
            (sql) => sql<{ tasks: number; settings: number; records: number; reviews: number }>`
            SELECT (SELECT count(*)::int FROM review_tasks) AS tasks, (SELECT count(*)::int FROM review_template_settings) AS settings,
              (SELECT count(*)::int FROM review_task_records) AS records, (SELECT count(*)::int FROM review_task_record_reviews) AS reviews`
          )
          const before = yield* count
          // Links longer than review_task_records.link (1000 characters): the records' insert, after the task's, fails.
          yield* runSql((sql) => sql`INSERT INTO review_settings (key, value) VALUES ('documentLinkTemplate', ${`${"x".repeat(950)}{id}`})`)
          const failed = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, { name: "Never" }))
          yield* runSql((sql) => sql`DELETE FROM review_settings WHERE key = 'documentLinkTemplate'`)
          expect(failed.status).toBe(500)
          expect(yield* count).toEqual(before)
          expect(yield* runSql((sql) => sql`SELECT 1 FROM review_tasks WHERE name = 'Never'`)).toEqual([])
        })
      )

      it.effect("tags the documents of confirmed records, which then show in the proxy's tags facet", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          const setup = yield* reviewSetup("d")
          const uuid = yield* runBatchSearch(setup.admin, queries)
          const created = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, { queries: ["contract", "offshore"] }))
          const task = Number(resource(created).id)
          const records = yield* taskRecords(task)
          expect(records.length).toBeGreaterThanOrEqual(3)
          const [agreed, disputed, open] = records
          // Confirmed: both checkers chose a confirming value. Disputed: one said wrong. Open: nobody answered yet.
          yield* choose(setup.alice, agreed!.id, setup.correct)
          yield* choose(setup.bob, agreed!.id, setup.correct)
          yield* choose(setup.alice, disputed!.id, setup.correct)
          yield* choose(setup.bob, disputed!.id, setup.wrong)
          expect(open).toBeDefined()

          const tagged = yield* api(setup.admin, "POST", `/api/v1/tasks/${task}/tag-documents/`, {
            data: { type: "TagDocuments", attributes: { tag: "checked-name", confirmingValues: ["Correct"] } }
          })
          expect(tagged.status).toBe(200)
          expect(tagged.body.meta).toEqual({ tag: "checked-name", records: 1, documents: 1 })
          expect(yield* tagFacet(setup.admin.cookie)).toContainEqual({ key: "checked-name", doc_count: 1 })
          const tags = (yield* bodyJson(
            yield* request(`/api/${project}/documents/tags/${agreed!.uid}`, { headers: { cookie: setup.admin.cookie } })
          )) as ReadonlyArray<{ label: string }>
          expect(tags.map((tag) => tag.label)).toContain("checked-name")

          const noValues = yield* api(setup.admin, "POST", `/api/v1/tasks/${task}/tag-documents/`, {
            data: { type: "TagDocuments", attributes: { tag: "x" } }
          })
          expect(noValues.status).toBe(400)
          expect(
            (yield* api(setup.admin, "POST", "/api/v1/tasks/999999/tag-documents/", {
              data: { type: "TagDocuments", attributes: { tag: "x", confirmingValues: ["Correct"] } }
            })).status
          ).toBe(404)
        })
      )

      it.effect("refuses checkers and staff without access to the batch search's project", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          const setup = yield* reviewSetup("e")
          const uuid = yield* runBatchSearch(setup.admin, queries)
          const outsider = yield* signInWith("outsider", { admin: true, projects: ["another-project"] })
          const refused = yield* fromBatchSearch(outsider, fromBatchSearchDocument(setup, uuid))
          expect(refused.status).toBe(403)
          expect(firstError(refused)).toMatchObject({ detail: `no access to project ${project}`, code: "permission_denied" })
          expect((yield* fromBatchSearch(setup.alice, fromBatchSearchDocument(setup, uuid))).status).toBe(403)

          const created = yield* fromBatchSearch(setup.admin, fromBatchSearchDocument(setup, uuid, { queries: ["Harbour"] }))
          const task = Number(resource(created).id)
          const [record] = yield* taskRecords(task)
          yield* choose(setup.alice, record!.id, setup.correct)
          yield* choose(setup.bob, record!.id, setup.correct)
          const tagging = { data: { type: "TagDocuments", attributes: { tag: "outsider-tag", confirmingValues: ["Correct"] } } }
          expect((yield* api(outsider, "POST", `/api/v1/tasks/${task}/tag-documents/`, tagging)).status).toBe(403)
          expect(yield* tagFacet(setup.admin.cookie)).not.toContainEqual(expect.objectContaining({ key: "outsider-tag" }))
          expect((yield* runSql((sql) => sql`SELECT 1 FROM review_tasks WHERE creator_id = ${outsider.id}`)).length).toBe(0)
        })
      )
    })
  })
}

describe("batch searches to review tasks in LOCAL mode", () => {
  layer(testServerLayer({ database: "pglite" }), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("lets the local user, staff with every project, send hits to review", () =>
      Effect.gen(function* () {
        yield* indexCorpus
        const local = { login: "local", id: 0, cookie: "" }
        const checker = yield* signInWith("checker", {})
        const form = new FormData()
        form.append("name", "local names")
        form.append("csvFile", new Blob(["offshore\n"], { type: "text/csv" }), "queries.csv")
        const uuid = yield* Effect.flatMap(request(`/api/batch/search/${project}`, { method: "POST", body: form }), (response) =>
          Effect.promise(() => response.text())
        )
        const state = runSql((sql) => sql<{ state: string }>`SELECT state FROM batch_searches WHERE uuid = ${uuid}`)
        yield* eventually(state, (rows) => rows[0]?.state === "SUCCESS", "60 seconds")
        const reviewProject = yield* create(local, "projects", "Project", { name: "Local" })
        const group = yield* create(local, "choice-groups", "ChoiceGroup", { name: "Local choices" })
        const created = yield* fromBatchSearch(local, {
          data: {
            type: "Task",
            attributes: { batchSearch: uuid },
            relationships: {
              project: { data: { type: "Project", id: String(reviewProject) } },
              choiceGroup: { data: { type: "ChoiceGroup", id: String(group) } },
              checkers: { data: [{ type: "User", id: String(checker.id) }] }
            }
          }
        })
        expect(created.status).toBe(201)
        expect(resource(created).attributes).toMatchObject({ name: "local names", rounds: 1 })
        expect((yield* taskRecords(Number(resource(created).id))).map((record) => record.originalValue)).toEqual(
          (yield* storedHits(uuid)).map(() => "offshore")
        )
      })
    )
  })
})
