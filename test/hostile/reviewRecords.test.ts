import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"
import { type Credential, threeWays } from "./threeWays.ts"

const jsonApi = "application/vnd.api+json"

const get = (path: string, credential: Credential) =>
  Effect.flatMap(request(path, { headers: credential.headers }), (response) =>
    Effect.map(bodyJson(response), (body) => ({
      status: response.status,
      body: body as { data?: unknown; errors?: ReadonlyArray<unknown>; included?: ReadonlyArray<{ type: string }> }
    }))
  )

/** Creates a resource as staff and answers its id. */
const create = (staff: Credential, path: string, type: string, attributes: object, relationships: object = {}) =>
  Effect.gen(function* () {
    const response = yield* request(`/api/v1/${path}/`, {
      method: "POST",
      headers: { ...staff.headers, "content-type": jsonApi },
      body: JSON.stringify({ data: { type, attributes, relationships } })
    })
    const body = (yield* bodyJson(response)) as { data: { id: string } }
    expect(response.status, JSON.stringify(body)).toBe(201)
    return body.data.id
  })

const userId = (credential: Credential) =>
  Effect.map(get("/api/v1/users/me/", credential), (answer) => (answer.body.data as { id: string }).id)

const ids = (data: unknown) => (data as ReadonlyArray<{ id: string }>).map((item) => item.id)

describe("Review task records are scoped to their task's checkers and staff (SERVER mode)", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect(
      "a user who checks no task of a record neither lists, reads, filters nor includes it, with Basic, an API key or a cookie",
      () =>
        Effect.gen(function* () {
          const [staff] = yield* threeWays("reviewadmin", "admin password", { admin: true })
          const [alice] = yield* threeWays("reviewalice", "alice password")
          const mallory = yield* threeWays("reviewmallory", "mallory password")
          const project = yield* create(staff!, "projects", "Project", { name: "Leak review" })
          const checkers = { data: [{ type: "User", id: yield* userId(alice!) }] }
          const task = yield* create(
            staff!,
            "tasks",
            "Task",
            { name: "Passages" },
            { project: { data: { type: "Project", id: project } }, checkers }
          )
          const record = yield* create(
            staff!,
            "task-records",
            "TaskRecord",
            { uid: "r1", originalValue: "a leaked passage", metadata: { path: "/vault/secret.pdf" } },
            {
              task: { data: { type: "Task", id: task } }
            }
          )
          const review = yield* create(
            staff!,
            "task-record-reviews",
            "TaskRecordReview",
            {},
            {
              taskRecord: { data: { type: "TaskRecord", id: record } },
              checker: { data: checkers.data[0] }
            }
          )

          for (const credential of mallory) {
            const listed = yield* get("/api/v1/task-records/", credential)
            expect(listed.status, credential.name).toBe(200)
            expect(ids(listed.body.data), credential.name).not.toContain(record)
            expect(ids((yield* get(`/api/v1/task-records/?filter[task]=${task}`, credential)).body.data), credential.name).toEqual([])
            const detail = yield* get(`/api/v1/task-records/${record}/`, credential)
            expect(detail.status, credential.name).toBe(403)
            expect(detail.body.errors, credential.name).toEqual([expect.objectContaining({ status: "403" })])
            expect((yield* get(`/api/v1/task-records/${record}/actions/`, credential)).status, credential.name).toBe(404)
            expect((yield* get(`/api/v1/task-records/${record}/relationships/actions/`, credential)).status, credential.name).toBe(404)
            // Actions name their records as targets: the activity stream does not include records out of scope.
            const actions = yield* get("/api/v1/actions/?include=target,actionObject&page[size]=100", credential)
            expect(actions.status, credential.name).toBe(200)
            expect(
              (actions.body.included ?? []).filter((item) => item.type === "TaskRecord"),
              credential.name
            ).toEqual([])
            expect(JSON.stringify(actions.body), credential.name).not.toContain("a leaked passage")
            expect((yield* get(`/api/v1/task-record-reviews/${review}/`, credential)).status, credential.name).toBe(404)
          }

          // The task's checker and staff still read it.
          expect(ids((yield* get("/api/v1/task-records/", alice!)).body.data)).toContain(record)
          expect((yield* get(`/api/v1/task-records/${record}/`, alice!)).status).toBe(200)
          expect(ids((yield* get("/api/v1/task-records/", staff!)).body.data)).toContain(record)
          expect((yield* get(`/api/v1/task-records/${record}/`, staff!)).status).toBe(200)
        })
    )
  })
})
