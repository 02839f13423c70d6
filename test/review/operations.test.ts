import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { testServerLayer } from "../helpers/server.ts"
import { api, type Caller, firstError, runSql } from "./helpers.ts"
import { putRecord, reviewedFixture } from "./workflow.ts"

type Operation = { id: unknown; method: unknown; payload: unknown }

const bulk = (caller: Caller, operations: ReadonlyArray<Operation>, payloads: ReadonlyArray<unknown>, type = "Operation") =>
  api(caller, "POST", "/api/v1/operations/", { data: { type, attributes: { operations, payloads } } }, "application/vnd.api+json; ext=bulk")

const choosing = (id: unknown, choice: number | null, attributes: Readonly<Record<string, unknown>> = {}) => ({
  id,
  value: {
    data: {
      type: "TaskRecordReview",
      attributes,
      relationships: { choice: { data: choice === null ? null : { type: "Choice", id: String(choice) } } }
    }
  }
})

const reviewRows = (ids: ReadonlyArray<number>) =>
  runSql(
    (sql) => sql<{ id: number; status: string; choiceId: number | null }>`
    SELECT id, status, choice_id AS "choiceId" FROM review_task_record_reviews WHERE id = ANY(${[...ids]}::int[]) ORDER BY id`
  )

describe("review API bulk operations", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("applies every operation like a single update and echoes the input", () =>
      Effect.gen(function* () {
        const { fixture, aliceOnA, aliceOnB } = yield* reviewedFixture("op1")
        const operations = [
          { id: String(aliceOnA), method: "update", payload: 1 },
          { id: aliceOnB, method: "update", payload: "1" }
        ]
        const payloads = [choosing(1, fixture.choices[1], { alternativeValue: "elsewhere" })]
        const answer = yield* bulk(fixture.alice, operations, payloads)
        expect(answer.status).toBe(200)
        expect(answer.body).toEqual({ data: { operations, payloads } })
        expect(yield* reviewRows([aliceOnA, aliceOnB])).toEqual([
          { id: aliceOnA, status: "DONE", choiceId: fixture.choices[1] },
          { id: aliceOnB, status: "DONE", choiceId: fixture.choices[1] }
        ])
        const [record] = yield* runSql(
          (sql) => sql<{ status: string }>`SELECT status FROM review_task_records WHERE id = ${fixture.records[1]!}`
        )
        expect(record!.status).toBe("ASSIGNED")
        expect((yield* bulk(fixture.alice, [], [])).status).toBe(200)
        expect((yield* api(fixture.alice, "GET", "/api/v1/operations/")).status).toBe(405)
      })
    )

    it.effect("one invalid operation changes nothing, whichever rule it breaks", () =>
      Effect.gen(function* () {
        const { fixture, aliceOnA, bobOnA, aliceOnB } = yield* reviewedFixture("op2")
        const valid = { id: aliceOnA, method: "update", payload: 1 }
        const cases: ReadonlyArray<readonly [Operation, ReadonlyArray<unknown>, number, string]> = [
          [{ id: bobOnA, method: "update", payload: 1 }, [], 403, "You do not have permission to update this resource."],
          [{ id: 999999, method: "update", payload: 1 }, [], 404, "The resource cannot be found"],
          [{ id: aliceOnB, method: "delete", payload: 1 }, [], 400, '"delete" is not a valid choice.'],
          [{ id: aliceOnB, method: "update", payload: 7 }, [], 400, "Payload 7 cannot be found in the `payloads` list"],
          [
            { id: aliceOnB, method: "update", payload: 2 },
            [{ id: 2, value: { data: { attributes: {} } } }],
            400,
            "Payload data must define a `type`"
          ],
          [
            { id: aliceOnB, method: "update", payload: 2 },
            [{ id: 2, value: { data: { type: "Tip" } } }],
            400,
            "Payload type must be one of: TaskRecordReview, UserNotification"
          ],
          [
            { id: aliceOnB, method: "update", payload: 2 },
            [{ id: 2, value: { data: { type: "TaskRecordReview", attributes: { note: ["a list"] } } } }],
            400,
            "Not a valid string."
          ]
        ]
        for (const [invalid, extraPayloads, status, detail] of cases) {
          const answer = yield* bulk(fixture.alice, [valid, invalid], [choosing(1, fixture.choices[0], { note: "bulk" }), ...extraPayloads])
          expect(answer.status, detail).toBe(status)
          expect(firstError(answer).detail).toBe(detail)
        }
        const noteError = yield* bulk(
          fixture.alice,
          [valid, { id: aliceOnB, method: "update", payload: 2 }],
          [choosing(1, fixture.choices[0]), { id: 2, value: { data: { type: "TaskRecordReview", attributes: { note: "x".repeat(101) } } } }]
        )
        expect(firstError(noteError).source?.pointer).toBe("/data/attributes/operations/1/attributes/note")
        expect((yield* bulk(fixture.alice, [valid], [choosing(1, fixture.choices[0])], "Task")).status).toBe(409)
        expect((yield* reviewRows([aliceOnA]))[0]).toEqual({ id: aliceOnA, status: "PENDING", choiceId: null })
        const [untouched] = yield* runSql(
          (sql) => sql<{ note: string | null }>`SELECT note FROM review_task_record_reviews WHERE id = ${aliceOnA}`
        )
        expect(untouched!.note).toBeNull()
      })
    )

    it.effect("applies the lock and task-status checks of the single update", () =>
      Effect.gen(function* () {
        const { fixture, aliceOnA, aliceOnB } = yield* reviewedFixture("op3")
        expect((yield* putRecord(fixture.bob, fixture.records[0]!, { locked: true })).status).toBe(200)
        const locked = yield* bulk(
          fixture.alice,
          [
            { id: aliceOnB, method: "update", payload: 1 },
            { id: aliceOnA, method: "update", payload: 1 }
          ],
          [choosing(1, fixture.choices[0])]
        )
        expect(locked.status).toBe(403)
        expect(firstError(locked).detail).toBe("This resource was locked by a user.")
        expect((yield* reviewRows([aliceOnB]))[0]!.status).toBe("PENDING")
        const notes = yield* bulk(
          fixture.alice,
          [{ id: aliceOnA, method: "update", payload: 1 }],
          [{ id: 1, value: { data: { type: "TaskRecordReview", attributes: { note: "fine" } } } }]
        )
        expect(notes.status).toBe(200)
      })
    )
  })
})
