import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { api, create, firstError, resource, runSql } from "./helpers.ts"
import { putRecord, putReview, reviewedFixture } from "./workflow.ts"

const recordFlags = (id: number) =>
  Effect.map(
    runSql(
      (sql) => sql<{ status: string; rounds: number; hasNotes: boolean; hasDisagreements: boolean }>`
      SELECT status, rounds, has_notes AS "hasNotes", has_disagreements AS "hasDisagreements" FROM review_task_records WHERE id = ${id}`
    ),
    (rows) => rows[0]
  )

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`review API checkers' writes on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("a checker picks, changes and cancels a choice; the record's status, rounds, flags and the task's progress follow", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA, bobOnA } = yield* reviewedFixture("ck1")
          const [correct, incorrect] = fixture.choices
          const a = fixture.records[0]!
          yield* api(fixture.admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, {
            data: { type: "Task", id: String(fixture.task), attributes: { rounds: 2 } }
          })
          const picked = yield* putReview(fixture.alice, aliceOnA, { alternativeValue: null, status: "PENDING" }, correct)
          expect(picked.status).toBe(200)
          expect(resource(picked).attributes).toMatchObject({ status: "DONE", choiceId: correct, alternativeValue: null })
          expect(yield* recordFlags(a)).toEqual({ status: "ASSIGNED", rounds: 2, hasNotes: false, hasDisagreements: false })
          // One DONE review out of the task's three; one out of alice's two.
          const progress = resource(yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.task}/`)).attributes
          expect(progress.progress).toBeCloseTo(100 / 3)
          expect(progress.userProgress).toBe(50)
          expect((yield* putReview(fixture.bob, bobOnA, { note: "not sure" }, incorrect)).status).toBe(200)
          expect(yield* recordFlags(a)).toEqual({ status: "DONE", rounds: 2, hasNotes: true, hasDisagreements: true })
          expect((yield* putReview(fixture.bob, bobOnA, {}, correct)).status).toBe(200)
          expect(yield* recordFlags(a)).toMatchObject({ status: "DONE", hasDisagreements: false })
          const cancelled = yield* putReview(fixture.bob, bobOnA, { note: "" }, null)
          expect(resource(cancelled).attributes).toMatchObject({ status: "PENDING", choiceId: null, note: "" })
          expect(yield* recordFlags(a)).toEqual({ status: "ASSIGNED", rounds: 2, hasNotes: false, hasDisagreements: false })
          const after = resource(yield* api(fixture.bob, "GET", `/api/v1/tasks/${fixture.task}/`)).attributes
          expect(after.progress).toBeCloseTo(100 / 3)
          expect(after.userProgress).toBe(0)
          // Staff deleting a review recomputes the record as well.
          expect((yield* api(fixture.admin, "DELETE", `/api/v1/task-record-reviews/${aliceOnA}/`)).status).toBe(204)
          expect(yield* recordFlags(a)).toEqual({ status: "ASSIGNED", rounds: 2, hasNotes: false, hasDisagreements: false })
        })
      )

      it.effect("only the review's checker updates it, PATCH is not allowed, and bad fields get 400 with their pointer", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA, bobOnA } = yield* reviewedFixture("ck2")
          const others = yield* putReview(fixture.alice, bobOnA, { note: "mine now" })
          expect(others.status).toBe(403)
          expect(firstError(others).detail).toBe("You do not have permission to update this resource.")
          expect((yield* putReview(fixture.admin, bobOnA, { note: "staff" })).status).toBe(403)
          expect((yield* putReview(fixture.carol, bobOnA, { note: "outsider" })).status).toBe(404)
          expect(
            (yield* api(fixture.alice, "PATCH", `/api/v1/task-record-reviews/${aliceOnA}/`, {
              data: { type: "TaskRecordReview", id: String(aliceOnA) }
            })).status
          ).toBe(405)
          const foreignGroup = yield* create(fixture.admin, "choice-groups", "ChoiceGroup", { name: "Other" })
          const foreign = yield* create(
            fixture.admin,
            "choices",
            "Choice",
            { name: "Elsewhere" },
            { choiceGroup: ["ChoiceGroup", foreignGroup] }
          )
          const wrongChoice = yield* putReview(fixture.alice, aliceOnA, {}, foreign)
          expect(wrongChoice.status).toBe(400)
          expect(firstError(wrongChoice)).toMatchObject({
            detail: `Invalid pk "${foreign}" - object does not exist.`,
            source: { pointer: "/data/relationships/choice" }
          })
          const longNote = yield* putReview(fixture.alice, aliceOnA, { note: "x".repeat(101) })
          expect(firstError(longNote)).toMatchObject({
            status: "400",
            detail: "Ensure this field has no more than 100 characters.",
            source: { pointer: "/data/attributes/note" }
          })
          const wrongType = yield* api(fixture.alice, "PUT", `/api/v1/task-record-reviews/${aliceOnA}/`, {
            data: { type: "TaskRecord", id: String(aliceOnA) }
          })
          expect(wrongType.status).toBe(409)
          expect(
            (yield* runSql(
              (sql) => sql`SELECT 1 FROM review_task_record_reviews WHERE id = ${aliceOnA} AND status = 'PENDING' AND note IS NULL`
            )).length
          ).toBe(1)
        })
      )

      it.effect("a choice that requires an alternative value is refused without one", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA } = yield* reviewedFixture("ck3")
          const other = yield* create(
            fixture.admin,
            "choices",
            "Choice",
            { name: "Other", requireAlternativeValue: true },
            { choiceGroup: ["ChoiceGroup", fixture.group] }
          )
          const missing = yield* putReview(fixture.alice, aliceOnA, { alternativeValue: "  " }, other)
          expect(missing.status).toBe(400)
          expect(firstError(missing)).toMatchObject({
            detail: "This choice requires an alternative value.",
            source: { pointer: "/data/attributes/alternativeValue" }
          })
          const given = yield* putReview(fixture.alice, aliceOnA, { alternativeValue: "Paris" }, other)
          expect(resource(given).attributes).toMatchObject({ status: "DONE", alternativeValue: "Paris" })
          expect((yield* putReview(fixture.alice, aliceOnA, { alternativeValue: null })).status).toBe(400)
          expect((yield* putReview(fixture.alice, aliceOnA, { note: "kept" })).status).toBe(200)
        })
      )

      it.effect("stamps a note's creation once and its update on every later change of its text", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA } = yield* reviewedFixture("ck4")
          const empty = resource(yield* putReview(fixture.alice, aliceOnA, { note: "" })).attributes
          expect(empty).toMatchObject({ noteCreatedAt: null, noteUpdatedAt: null })
          const first = resource(yield* putReview(fixture.alice, aliceOnA, { note: "first" })).attributes
          expect(first.noteCreatedAt).toEqual(expect.stringMatching(/Z$/))
          expect(first.noteUpdatedAt).toBeNull()
          const same = resource(yield* putReview(fixture.alice, aliceOnA, { note: "first" })).attributes
          expect(same).toMatchObject({ noteCreatedAt: first.noteCreatedAt, noteUpdatedAt: null })
          const changed = resource(yield* putReview(fixture.alice, aliceOnA, { note: "second" })).attributes
          expect(changed.noteCreatedAt).toBe(first.noteCreatedAt)
          expect(changed.noteUpdatedAt).toEqual(expect.stringMatching(/Z$/))
          expect(yield* recordFlags(fixture.records[0]!)).toMatchObject({ hasNotes: true })
        })
      )

      it.effect("a closed task or a locked record refuses choices but not notes and alternative values", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA, aliceOnB } = yield* reviewedFixture("ck5")
          expect((yield* putRecord(fixture.alice, fixture.records[0]!, { locked: true })).status).toBe(200)
          const locked = yield* putReview(fixture.alice, aliceOnA, {}, fixture.choices[0])
          expect(locked.status).toBe(403)
          expect(firstError(locked).detail).toBe("This resource was locked by a user.")
          expect((yield* putReview(fixture.alice, aliceOnA, {}, null)).status).toBe(403)
          expect((yield* putReview(fixture.alice, aliceOnA, { note: "still", alternativeValue: "x" })).status).toBe(200)
          yield* api(fixture.admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, {
            data: { type: "Task", id: String(fixture.task), attributes: { status: "CLOSED" } }
          })
          const closed = yield* putReview(fixture.alice, aliceOnB, {}, fixture.choices[0])
          expect(closed.status).toBe(403)
          expect(firstError(closed).detail).toBe("This resource's task was locked by a user.")
          expect((yield* putReview(fixture.alice, aliceOnB, { note: "closed but noted" })).status).toBe(200)
        })
      )

      it.effect("records are locked and unlocked by their reviewers only, and bookmarked per user (PUT or PATCH)", () =>
        Effect.gen(function* () {
          const { fixture } = yield* reviewedFixture("ck6")
          const [a, , c] = fixture.records
          const locked = yield* putRecord(fixture.alice, a!, { locked: true, uid: "ignored" })
          expect(locked.status).toBe(200)
          expect(resource(locked).attributes).toMatchObject({ locked: true, uid: "a" })
          expect(resource(locked).relationships.lockedBy?.data).toEqual({ type: "User", id: String(fixture.alice.id) })
          const again = yield* putRecord(fixture.bob, a!, { locked: true })
          expect(again.status).toBe(400)
          expect(firstError(again)).toMatchObject({
            detail: "Cannot lock this task record",
            source: { pointer: "/data/attributes/locked" }
          })
          expect(firstError(yield* putRecord(fixture.bob, a!, { locked: false })).detail).toBe("Cannot unlock this task record")
          expect(resource(yield* putRecord(fixture.alice, a!, { locked: false }, "PATCH")).attributes.locked).toBe(false)
          expect(firstError(yield* putRecord(fixture.alice, a!, { locked: false })).detail).toBe("Cannot unlock this task record")
          const outsider = yield* putRecord(fixture.carol, a!, { locked: true })
          expect(outsider.status).toBe(403)
          expect(firstError(outsider).detail).toBe("You do not have permission to update this resource.")
          expect((yield* putRecord(fixture.alice, c!, { bookmarked: true })).status).toBe(403)
          expect(resource(yield* putRecord(fixture.alice, a!, { bookmarked: true })).attributes.bookmarked).toBe(true)
          expect(resource(yield* putRecord(fixture.alice, a!, { bookmarked: true })).attributes.bookmarked).toBe(true)
          expect(resource(yield* putRecord(fixture.bob, a!, { bookmarked: "yes" })).attributes.bookmarked).toBe(false)
          expect(resource(yield* putRecord(fixture.alice, a!, { bookmarked: false }, "PATCH")).attributes.bookmarked).toBe(false)
          // Staff edit content; locking stays a reviewer's act for them too.
          const edited = yield* putRecord(fixture.admin, a!, { uid: "a2", priority: 3 }, "PATCH")
          expect(resource(edited).attributes.uid).toBe("a2")
          expect((yield* putRecord(fixture.admin, a!, { locked: true })).status).toBe(403)
          yield* api(fixture.admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, {
            data: { type: "Task", id: String(fixture.task), attributes: { status: "LOCKED" } }
          })
          const closed = yield* putRecord(fixture.alice, a!, { locked: true })
          expect(firstError(closed)).toMatchObject({
            status: "403",
            detail: "You do not have permission to update a resource from a locked or closed task"
          })
        })
      )

      it.effect("meta.countBy counts the whole filtered list, not the page, and follows the filters", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA, aliceOnB } = yield* reviewedFixture("ck8")
          yield* putReview(fixture.alice, aliceOnA, {}, fixture.choices[0])
          yield* putReview(fixture.alice, aliceOnB, {}, fixture.choices[1])
          const page = yield* api(fixture.bob, "GET", `/api/v1/task-record-reviews/?filter[task_record__task]=${fixture.task}&page[size]=1`)
          expect(page.body.meta).toEqual({
            pagination: { page: 1, pages: 3, count: 3 },
            countBy: [
              { taskId: fixture.task, count: 3 },
              { choiceId: null, count: 1 },
              { choiceId: fixture.choices[0], count: 1 },
              { choiceId: fixture.choices[1], count: 1 }
            ]
          })
          const disagreeing = yield* api(
            fixture.bob,
            "GET",
            `/api/v1/task-record-reviews/?filter[choice__isnull]=false&filter[task_record__reviews__checker__in]=${fixture.alice.id},${fixture.bob.id}`
          )
          expect((disagreeing.body.meta as { countBy: unknown }).countBy).toEqual([
            { taskId: fixture.task, count: 2 },
            { choiceId: fixture.choices[0], count: 1 },
            { choiceId: fixture.choices[1], count: 1 }
          ])
        })
      )

      it.effect("two checkers racing to lock the same record: exactly one wins", () =>
        Effect.gen(function* () {
          const { fixture } = yield* reviewedFixture("ck7")
          const a = fixture.records[0]!
          for (let attempt = 0; attempt < 5; attempt++) {
            const answers = yield* Effect.all(
              [putRecord(fixture.alice, a, { locked: true }), putRecord(fixture.bob, a, { locked: true })],
              { concurrency: "unbounded" }
            )
            expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400])
            const winner = answers[0]!.status === 200 ? fixture.alice : fixture.bob
            const [row] = yield* runSql(
              (sql) => sql<{ lockedById: number }>`SELECT locked_by_id AS "lockedById" FROM review_task_records WHERE id = ${a}`
            )
            expect(row!.lockedById).toBe(winner.id)
            expect((yield* putRecord(winner, a, { locked: false })).status).toBe(200)
          }
        })
      )
    })
  })
}
