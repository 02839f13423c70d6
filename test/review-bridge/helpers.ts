import * as fs from "node:fs/promises"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { eventually } from "../engine/helpers.ts"
import { files as corpusFiles, generateCorpus } from "../fixtures/corpus.ts"
import { indexFiles } from "../helpers/indexing.ts"
import { bodyJson, bodyText, request, TestServer } from "../helpers/server.ts"
import { addUser, sessionCookieOf } from "../helpers/users.ts"
import { api, type Caller, create, runSql } from "../review/helpers.ts"

export const project = "local-datashare"

/** Files of the fixture corpus worth searching here (the archives and bombs only slow the run down). */
const searched = ["utf8", "latin1", "html", "docx", "rtf", "eml", "csv", "json"] as const

/** Writes the fixture corpus once per server and indexes part of it in `project`; answers the documents. */
export const indexCorpus = Effect.gen(function* () {
  const server = yield* TestServer
  const dir = `${server.workDir}/corpus`
  yield* Effect.promise(() => fs.mkdir(dir, { recursive: true }))
  const written = yield* Effect.promise(() => generateCorpus(dir))
  expect(Object.keys(written)).toEqual(Object.keys(corpusFiles))
  return yield* indexFiles(
    project,
    searched.map((key) => written[key])
  )
})

/** A user of SERVER mode with the given projects, signed in once (its session cookie serves both APIs). */
export const signInWith = (login: string, options: { readonly admin?: boolean; readonly projects?: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    yield* addUser(login, "pw", options)
    const cookie = yield* sessionCookieOf(login, "pw")
    const body = (yield* bodyJson(yield* request("/api/v1/users/me/", { headers: { cookie } }))) as { data: { id: string } }
    return { login, id: Number(body.data.id), cookie } satisfies Caller
  })

/** Runs a batch search (one query a line) as `owner`, published, and waits for it to finish; answers its uuid. */
export const runBatchSearch = (owner: Caller, queries: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const form = new FormData()
    form.append("name", "names to check")
    form.append("published", "true")
    form.append("csvFile", new Blob([queries.join("\n")], { type: "text/csv" }), "queries.csv")
    const created = yield* request(`/api/batch/search/${project}`, { method: "POST", body: form, headers: { cookie: owner.cookie } })
    expect(created.status).toBe(200)
    const uuid = yield* bodyText(created)
    const read = Effect.flatMap(request(`/api/batch/search/${uuid}`, { headers: { cookie: owner.cookie } }), bodyJson)
    const finished = (yield* eventually(
      read,
      (body) => ["SUCCESS", "FAILURE"].includes((body as { state: string }).state),
      "60 seconds"
    )) as { state: string }
    expect(finished.state).toBe("SUCCESS")
    return uuid
  })

/** The stored hits of a batch search: query, document id and root, in query then rank order. */
export const storedHits = (uuid: string) =>
  runSql(
    (sql) => sql<{ query: string; docId: string; rootId: string }>`
    SELECT query, doc_id AS "docId", root_id AS "rootId" FROM batch_search_results WHERE search_uuid = ${uuid} ORDER BY query_number, doc_nb`
  )

/** The records of a task as (query, document) pairs with their columns. */
export const taskRecords = (task: number) =>
  runSql(
    (sql) => sql<{
      id: number
      uid: string
      originalValue: string
      predictedValue: string | null
      metadata: Record<string, unknown>
      link: string | null
    }>`
    SELECT id, uid, original_value AS "originalValue", predicted_value AS "predictedValue", metadata, link
    FROM review_task_records WHERE task_id = ${task} ORDER BY id`
  )

export interface ReviewSetup {
  readonly admin: Caller
  readonly alice: Caller
  readonly bob: Caller
  readonly reviewProject: number
  readonly group: number
  readonly correct: number
  readonly wrong: number
}

/** An admin with the document project, two checkers, a review project and a choice group (Correct / wrong). */
export const reviewSetup = (suffix: string) =>
  Effect.gen(function* () {
    const admin = yield* signInWith(`admin${suffix}`, { admin: true, projects: [project] })
    const alice = yield* signInWith(`alice${suffix}`, { projects: [project] })
    const bob = yield* signInWith(`bob${suffix}`, { projects: [project] })
    const reviewProject = yield* create(admin, "projects", "Project", { name: `Hits ${suffix}` })
    const group = yield* create(admin, "choice-groups", "ChoiceGroup", { name: "Confirmation" })
    const correct = yield* create(admin, "choices", "Choice", { name: "Correct" }, { choiceGroup: ["ChoiceGroup", group] })
    const wrong = yield* create(admin, "choices", "Choice", { name: "Wrong", value: "wrong" }, { choiceGroup: ["ChoiceGroup", group] })
    return { admin, alice, bob, reviewProject, group, correct, wrong } satisfies ReviewSetup
  })

/** The from-batch-search request document: a new task (no `task`) or more hits for an existing one. */
export const fromBatchSearchDocument = (
  setup: ReviewSetup,
  uuid: string,
  attributes: Readonly<Record<string, unknown>> = {},
  task?: number
) => ({
  data: {
    type: "Task",
    ...(task === undefined ? {} : { id: String(task) }),
    attributes: { batchSearch: uuid, ...attributes },
    relationships:
      task === undefined
        ? {
            project: { data: { type: "Project", id: String(setup.reviewProject) } },
            choiceGroup: { data: { type: "ChoiceGroup", id: String(setup.group) } },
            checkers: {
              data: [
                { type: "User", id: String(setup.alice.id) },
                { type: "User", id: String(setup.bob.id) }
              ]
            }
          }
        : {}
  }
})

export const fromBatchSearch = (caller: Caller, document: unknown) => api(caller, "POST", "/api/v1/tasks/from-batch-search/", document)
