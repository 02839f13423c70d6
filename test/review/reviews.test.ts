import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { api, create, firstError, type Fixture, items, resource, runSql, seed } from "./helpers.ts"

const assign = (fixture: Fixture, record: number, checker: number) =>
  create(fixture.admin, "task-record-reviews", "TaskRecordReview", {}, { taskRecord: ["TaskRecord", record], checker: ["User", checker] })

/** Reviews on records a and b (alice round 1, bob round 2 on a; alice on b), a chose "Correct" with a note. */
const withReviews = (suffix: string) =>
  Effect.gen(function* () {
    const fixture = yield* seed(suffix)
    const [a, b] = fixture.records
    const aliceOnA = yield* assign(fixture, a!, fixture.alice.id)
    const bobOnA = yield* assign(fixture, a!, fixture.bob.id)
    const aliceOnB = yield* assign(fixture, b!, fixture.alice.id)
    yield* runSql(
      (sql) =>
        sql`UPDATE review_task_record_reviews SET status = 'DONE', choice_id = ${fixture.choices[0]}, note = 'sure' WHERE id = ${aliceOnA}`
    )
    yield* runSql((sql) => sql`UPDATE review_task_records SET has_notes = true, priority = 5 WHERE id = ${a!}`)
    yield* runSql(
      (sql) =>
        sql`INSERT INTO review_task_record_bookmarks (task_record_id, user_id) VALUES (${a!}, ${fixture.alice.id}), (${a!}, ${fixture.bob.id})`
    )
    return { fixture, aliceOnA, bobOnA, aliceOnB }
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`review API reviews list on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect(
        "lists the reviews of the tasks one checks with their default includes and countBy, and shows a review to its checker only",
        () =>
          Effect.gen(function* () {
            const { fixture, aliceOnA, bobOnA, aliceOnB } = yield* withReviews("rv1")
            const listed = yield* api(fixture.alice, "GET", `/api/v1/task-record-reviews/?filter[task_record__task]=${fixture.task}`)
            expect(items(listed).map((item) => Number(item.id))).toEqual([aliceOnB, bobOnA, aliceOnA])
            expect(listed.body.meta).toEqual({
              pagination: { page: 1, pages: 1, count: 3 },
              countBy: [
                { taskId: fixture.task, count: 3 },
                { choiceId: null, count: 2 },
                { choiceId: fixture.choices[0], count: 1 }
              ]
            })
            const review = items(listed).find((item) => Number(item.id) === aliceOnA)!
            expect(review.attributes).toMatchObject({
              status: "DONE",
              note: "sure",
              choiceId: fixture.choices[0],
              taskId: String(fixture.task)
            })
            expect(review.relationships?.history).toEqual({
              meta: { count: 2 },
              data: [
                { type: "TaskRecordReview", id: String(aliceOnA) },
                { type: "TaskRecordReview", id: String(bobOnA) }
              ]
            })
            const types = new Set((listed.body.included as ReadonlyArray<{ type: string }>).map((item) => item.type))
            expect([...types].sort()).toEqual(["Choice", "TaskRecord", "User"])
            expect(items(yield* api(fixture.carol, "GET", "/api/v1/task-record-reviews/"))).toHaveLength(0)
            const detail = yield* api(fixture.alice, "GET", `/api/v1/task-record-reviews/${aliceOnA}/?include=history`)
            expect(detail.status).toBe(200)
            // History items are included in their flat form, the review itself only once (as the primary data).
            expect(detail.body.included).toEqual([
              {
                type: "TaskRecordReview",
                id: String(bobOnA),
                attributes: {
                  status: "PENDING",
                  note: null,
                  noteCreatedAt: null,
                  noteUpdatedAt: null,
                  taskId: String(fixture.task),
                  taskRecordId: String(fixture.records[0]),
                  alternativeValue: null
                },
                relationships: { checker: { data: { type: "User", id: String(fixture.bob.id) } }, choice: { data: null } },
                links: { self: expect.stringMatching(new RegExp(`/api/v1/task-record-reviews/${bobOnA}/$`)) }
              }
            ])
            const others = yield* api(fixture.alice, "GET", `/api/v1/task-record-reviews/${bobOnA}/`)
            expect(others.status).toBe(403)
            expect(firstError(others).detail).toBe("You do not have permission to update this resource.")
            expect((yield* api(fixture.carol, "GET", `/api/v1/task-record-reviews/${bobOnA}/`)).status).toBe(404)
          })
      )

      it.effect("filters reviews the way the front end asks, without listing a review twice", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA, bobOnA, aliceOnB } = yield* withReviews("rv2")
          const ids = (query: string) =>
            Effect.map(
              api(fixture.alice, "GET", `/api/v1/task-record-reviews/?filter[task_record__task]=${fixture.task}&${query}`),
              (answer) => {
                expect(answer.status, query).toBe(200)
                return items(answer).map((item) => Number(item.id))
              }
            )
          expect(yield* ids(`filter[checker]=${fixture.alice.id}`)).toEqual([aliceOnB, aliceOnA])
          expect(yield* ids("filter[choice__isnull]=true")).toEqual([aliceOnB, bobOnA])
          expect(yield* ids(`filter[choice__in]=${fixture.choices[0]}`)).toEqual([aliceOnA])
          expect(yield* ids(`filter[task_record__reviews__checker__in]=${fixture.alice.id},${fixture.bob.id}`)).toEqual([
            aliceOnB,
            bobOnA,
            aliceOnA
          ])
          expect(yield* ids(`filter[task_record__bookmarked_by]=${fixture.alice.id},${fixture.bob.id}`)).toEqual([bobOnA, aliceOnA])
          expect(yield* ids("filter[task_record__has_notes]=1")).toEqual([bobOnA, aliceOnA])
          expect(yield* ids("filter[task_record__has_notes]=true")).toEqual([aliceOnB, bobOnA, aliceOnA])
          expect(yield* ids("filter[task_record__priority__in]=5")).toEqual([bobOnA, aliceOnA])
          expect(yield* ids("filter[task_record__predicted_value__iregex]=(PREDICTED b|nothing)")).toEqual([aliceOnB])
          expect(yield* ids(`filter[task_record__reviews__id]=${bobOnA}`)).toEqual([bobOnA, aliceOnA])
          expect(yield* ids("filter[task_record__all_rounds_reviewed]=0")).toEqual([aliceOnB, bobOnA, aliceOnA])
          expect(yield* ids("filter[search]=original,b")).toEqual([aliceOnB])
          expect(yield* ids("sort=-task_record__priority")).toEqual([aliceOnA, bobOnA, aliceOnB])
          expect(yield* ids("filter[taskRecord.task]=" + String(fixture.task) + "&sort=taskRecord.id")).toEqual([
            aliceOnA,
            bobOnA,
            aliceOnB
          ])
          const invalid = yield* api(fixture.alice, "GET", "/api/v1/task-record-reviews/?filter[task_record__colour]=1")
          expect(invalid.status).toBe(400)
          expect(resource(yield* api(fixture.alice, "GET", `/api/v1/task-record-reviews/${aliceOnA}/?include=checker`)).id).toBe(
            String(aliceOnA)
          )
        })
      )
    })
  })
}
