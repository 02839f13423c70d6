import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { testServerLayer } from "../helpers/server.ts"
import { api, type Caller, create, firstError, items, resource } from "./helpers.ts"
import { putRecord, putReview, reviewedFixture } from "./workflow.ts"

type Listed = ReadonlyArray<{ id: string; attributes?: Record<string, unknown>; relationships?: Record<string, { data: unknown }> }>

const list = (caller: Caller, path: string) =>
  Effect.map(api(caller, "GET", path), (answer) => {
    expect(answer.status, path).toBe(200)
    return items(answer) as Listed
  })

const today = new Date().toISOString().slice(0, 10)

describe("review API activity and notifications", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("records the reference's verbs for review updates and record marks, and lists them with their filters", () =>
      Effect.gen(function* () {
        const { fixture, aliceOnA } = yield* reviewedFixture("ac1")
        const a = fixture.records[0]!
        expect((yield* putReview(fixture.alice, aliceOnA, { alternativeValue: "Paris", note: "" }, fixture.choices[0])).status).toBe(200)
        expect((yield* putReview(fixture.alice, aliceOnA, {}, null)).status).toBe(200)
        expect((yield* putRecord(fixture.alice, a, { locked: true, bookmarked: true })).status).toBe(200)
        const answer = yield* api(fixture.bob, "GET", `/api/v1/actions/?filter[user_stream]=${fixture.alice.id}`)
        const actions = items(answer) as Listed
        // Newest first; each first count of a verb in a day follows its action as a created-aggregate.
        expect(actions.map((action) => action.attributes?.verb)).toEqual([
          "bookmarked",
          "locked",
          "created-aggregate",
          "cancelled",
          "created-aggregate",
          "commented",
          "created-aggregate",
          "selected",
          "created-aggregate",
          "reviewed"
        ])
        const reviewed = actions.find((action) => action.attributes?.verb === "reviewed")!
        expect(reviewed.attributes).toMatchObject({ data: { task_id: fixture.task }, public: true, timestamp: expect.stringMatching(/Z$/) })
        expect(reviewed.relationships).toEqual({
          actor: { data: { type: "User", id: String(fixture.alice.id) } },
          actionObject: { data: { type: "Choice", id: String(fixture.choices[0]) } },
          target: { data: { type: "TaskRecordReview", id: String(aliceOnA) } }
        })
        expect(actions.find((action) => action.attributes?.verb === "selected")!.attributes?.data).toEqual({
          alternative_value: "Paris",
          task_id: fixture.task
        })
        const included = answer.body.included as ReadonlyArray<{ type: string; id: string }>
        expect(included.some((item) => item.type === "TaskRecordReview" && item.id === String(aliceOnA))).toBe(true)
        expect(included.some((item) => item.type === "ActionAggregate")).toBe(true)
        const verbs = yield* list(fixture.carol, "/api/v1/actions/?filter[verb__in]=locked,bookmarked")
        expect(verbs.map((action) => action.attributes?.verb)).toEqual(["bookmarked", "locked"])
        expect((yield* api(fixture.alice, "GET", "/api/v1/actions/?filter[user_stream]=999999")).status).toBe(400)
        const aboutRecord = yield* list(fixture.bob, `/api/v1/task-records/${a}/relationships/actions/?page[size]=50`)
        expect(aboutRecord.map((action) => action.attributes?.verb)).toEqual([
          "bookmarked",
          "locked",
          "cancelled",
          "commented",
          "selected",
          "reviewed"
        ])
        expect(yield* list(fixture.bob, `/api/v1/task-records/${fixture.records[2]!}/actions/`)).toEqual([])
        // A record's actions are for its task's checkers, as the record is (issue 22): Carol checks another task.
        expect((yield* api(fixture.carol, "GET", `/api/v1/task-records/${a}/actions/`)).status).toBe(404)
        expect((yield* api(fixture.carol, "GET", "/api/v1/task-records/999999/actions/")).status).toBe(404)
        expect((yield* api(fixture.carol, "GET", `/api/v1/actions/${reviewed.id}/`)).status).toBe(200)
      })
    )

    it.effect("counts the review verbs per user, task and day, with both parameter forms", () =>
      Effect.gen(function* () {
        const { fixture, aliceOnA, aliceOnB, bobOnA } = yield* reviewedFixture("ac2")
        yield* putReview(fixture.alice, aliceOnA, {}, fixture.choices[0])
        yield* putReview(fixture.alice, aliceOnB, {}, fixture.choices[1])
        yield* putReview(fixture.bob, bobOnA, { note: "ok" }, fixture.choices[1])
        const counts = (rows: Listed) =>
          rows.map((row) => [row.attributes?.verb, row.attributes?.count, (row.relationships?.user?.data as { id: string }).id]).sort()
        const alice = String(fixture.alice.id)
        const bob = String(fixture.bob.id)
        expect(counts(yield* list(fixture.alice, `/api/v1/action-aggregates/?user=${fixture.alice.id}`))).toEqual([["reviewed", 2, alice]])
        expect(
          counts(yield* list(fixture.alice, `/api/v1/action-aggregates/?filter[user]=${fixture.bob.id}&date_after=${today}&unknown=1`))
        ).toEqual([
          ["commented", 1, bob],
          ["reviewed", 1, bob]
        ])
        expect(yield* list(fixture.alice, "/api/v1/action-aggregates/?date_after=2999-01-01")).toEqual([])
        const all = yield* list(fixture.alice, `/api/v1/action-aggregates/?verb__in=reviewed,commented&date_before=${today}`)
        expect(all).toHaveLength(3)
        expect(all[0]!.attributes?.date).toBe(today)
        expect(yield* list(fixture.carol, "/api/v1/action-aggregates/")).toEqual([])
        expect((yield* api(fixture.alice, "GET", "/api/v1/action-aggregates/?date_after=yesterday")).status).toBe(400)
        expect((yield* api(fixture.alice, "GET", `/api/v1/action-aggregates/${all[0]!.id}/`)).status).toBe(200)
        const created = yield* list(
          fixture.alice,
          `/api/v1/actions/?filter[verb]=created-aggregate&filter[user_stream]=${fixture.alice.id}`
        )
        expect(created).toHaveLength(1)
      })
    )

    it.effect("records task status changes by the task's creator and tip saves, whose mentions notify", () =>
      Effect.gen(function* () {
        const { fixture } = yield* reviewedFixture("ac4")
        const patchTask = (status: string) =>
          api(fixture.admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, {
            data: { type: "Task", id: String(fixture.task), attributes: { status } }
          })
        yield* patchTask("CLOSED")
        yield* patchTask("CLOSED")
        yield* patchTask("OPEN")
        const taskActions = yield* list(fixture.alice, "/api/v1/actions/?filter[verb__in]=closed,open")
        expect(
          taskActions.map((action) => [action.attributes?.verb, action.relationships?.target?.data, action.relationships?.actor?.data])
        ).toEqual([
          ["open", { type: "Task", id: String(fixture.task) }, { type: "User", id: String(fixture.admin.id) }],
          ["closed", { type: "Task", id: String(fixture.task) }, { type: "User", id: String(fixture.admin.id) }]
        ])
        const tip = yield* create(
          fixture.admin,
          "tips",
          "Tip",
          { name: "Hint", description: `@project see this` },
          { task: ["Task", fixture.task] }
        )
        yield* api(fixture.admin, "PATCH", `/api/v1/tips/${tip}/`, {
          data: { type: "Tip", id: String(tip), attributes: { description: "@project again" } }
        })
        const tipActions = yield* list(fixture.alice, `/api/v1/actions/?filter[verb__in]=created,updated`)
        expect(tipActions.map((action) => action.attributes?.verb)).toEqual(["updated", "created"])
        // Every checker of the tip's project (alice and bob), once for the tip; carol checks another project.
        expect(yield* list(fixture.alice, "/api/v1/user-notifications/")).toHaveLength(1)
        expect(yield* list(fixture.bob, "/api/v1/user-notifications/")).toHaveLength(1)
        expect(yield* list(fixture.carol, "/api/v1/user-notifications/")).toEqual([])
      })
    )

    it.effect("notifies each mentioned user once per mention, and lets them mark notifications read", () =>
      Effect.gen(function* () {
        const { fixture, aliceOnA, aliceOnB, bobOnA } = yield* reviewedFixture("ac3")
        const { alice, bob } = fixture
        expect((yield* putReview(alice, aliceOnA, { note: `@${bob.login} look, @${bob.login}! @nobody` })).status).toBe(200)
        yield* putReview(alice, aliceOnA, { note: `@${bob.login} look, @${bob.login}! @nobody` })
        yield* putReview(alice, aliceOnA, { note: `still @${bob.login}` })
        const bobs = yield* api(bob, "GET", "/api/v1/user-notifications/?include=action.actionObject,action.actor")
        expect(items(bobs)).toHaveLength(1)
        expect(items(bobs)[0]!.attributes).toEqual({ read: false, readAt: null, createdAt: expect.stringMatching(/Z$/) })
        const types = (bobs.body.included as ReadonlyArray<{ type: string }>).map((item) => item.type).sort()
        expect(types).toEqual(["Action", "TaskRecordReview", "User"])
        // Another review with the same mention notifies again; @task reaches the task's other checkers; self-mentions count.
        yield* putReview(alice, aliceOnB, { note: `@${bob.login} and @task` })
        expect(yield* list(bob, "/api/v1/user-notifications/")).toHaveLength(2)
        yield* putReview(bob, bobOnA, { note: `@TASK @${bob.login}` })
        expect(yield* list(alice, "/api/v1/user-notifications/")).toHaveLength(1)
        expect(yield* list(bob, "/api/v1/user-notifications/")).toHaveLength(3)
        expect(yield* list(fixture.carol, "/api/v1/user-notifications/")).toEqual([])
        const [newest] = yield* list(bob, "/api/v1/user-notifications/?page[size]=1")
        const put = (caller: Caller, read: unknown) =>
          api(caller, "PUT", `/api/v1/user-notifications/${newest!.id}/`, {
            data: { type: "UserNotification", id: newest!.id, attributes: { read, readAt: "2000-01-01T00:00:00Z" } }
          })
        expect((yield* put(alice, true)).status).toBe(404)
        const read = resource(yield* put(bob, true)).attributes
        expect(read).toMatchObject({ read: true, readAt: expect.stringMatching(/Z$/) })
        expect(resource(yield* put(bob, false)).attributes).toMatchObject({ read: false, readAt: read.readAt })
        expect(firstError(yield* put(bob, "yes")).source?.pointer).toBe("/data/attributes/read")
        expect((yield* api(bob, "PATCH", `/api/v1/user-notifications/${newest!.id}/`, {})).status).toBe(405)
        const all = yield* list(bob, "/api/v1/user-notifications/")
        const bulk = yield* api(bob, "POST", "/api/v1/operations/", {
          data: {
            type: "Operation",
            attributes: {
              operations: all.map((row) => ({ id: row.id, method: "update", payload: "read" })),
              payloads: [{ id: "read", value: { data: { type: "UserNotification", attributes: { read: true } } } }]
            }
          }
        })
        expect(bulk.status).toBe(200)
        const foreign = yield* api(alice, "POST", "/api/v1/operations/", {
          data: {
            type: "Operation",
            attributes: {
              operations: [{ id: all[0]!.id, method: "update", payload: 1 }],
              payloads: [{ id: 1, value: { data: { type: "UserNotification", attributes: { read: false } } } }]
            }
          }
        })
        expect(foreign.status).toBe(403)
        expect((yield* list(bob, "/api/v1/user-notifications/")).map((row) => row.attributes?.read)).toEqual([true, true, true])
        expect(yield* list(bob, "/api/v1/user-notifications/?filter[level]=ERROR")).toEqual([])
      })
    )
  })
})
