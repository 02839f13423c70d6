import { Effect } from "effect"
import { api, type Caller, create, type Fixture, seed } from "./helpers.ts"

/** Gives a record to a checker (staff API); answers the review id. */
export const assign = (fixture: Fixture, record: number, checker: number, round?: number) =>
  create(fixture.admin, "task-record-reviews", "TaskRecordReview", round === undefined ? {} : { round }, {
    taskRecord: ["TaskRecord", record],
    checker: ["User", checker]
  })

/** A review update as its checker would send it: attributes and, when given, the choice (null cancels). */
export const putReview = (caller: Caller, id: number, attributes: Readonly<Record<string, unknown>>, choice?: number | null) =>
  api(caller, "PUT", `/api/v1/task-record-reviews/${id}/`, {
    data: {
      type: "TaskRecordReview",
      id: String(id),
      attributes,
      ...(choice === undefined
        ? {}
        : { relationships: { choice: { data: choice === null ? null : { type: "Choice", id: String(choice) } } } })
    }
  })

export const putRecord = (caller: Caller, id: number, attributes: Readonly<Record<string, unknown>>, method = "PUT") =>
  api(caller, method, `/api/v1/task-records/${id}/`, { data: { type: "TaskRecord", id: String(id), attributes } })

/** The seed fixture with a three-round task: alice (round 1) and bob (round 2) review record a, alice reviews b. */
export const reviewedFixture = (suffix: string) =>
  Effect.gen(function* () {
    const fixture = yield* seed(suffix)
    const [a, b] = fixture.records
    return {
      fixture,
      aliceOnA: yield* assign(fixture, a!, fixture.alice.id),
      bobOnA: yield* assign(fixture, a!, fixture.bob.id),
      aliceOnB: yield* assign(fixture, b!, fixture.alice.id)
    }
  })
