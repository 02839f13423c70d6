import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { type Caller, create, runSql } from "../review/helpers.ts"
import { reviewedFixture } from "../review/workflow.ts"
import { quarryClient } from "./client.ts"

/** A review client signed in with the caller's session cookie. */
const reviewClient = (caller: Caller) => quarryClient("ndjson", { _tag: "Session", cookie: caller.cookie })

const collect = <A, E, R>(stream: Stream.Stream<A, E, R>) => Effect.map(Stream.runCollect(stream), Chunk.toReadonlyArray)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Review RPCs on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
      it.scoped("list a task's records and the caller's reviews within the review API's scopes", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA, bobOnA, aliceOnB } = yield* reviewedFixture("rpc1")
          const [alice, bob, carol, admin] = yield* Effect.forEach([fixture.alice, fixture.bob, fixture.carol, fixture.admin], reviewClient)
          const records = yield* collect(alice!.taskRecords({ taskId: fixture.task, pageSize: 2 }))
          expect(records.map((record) => [record.id, record.uid, record.taskId])).toEqual(
            fixture.records.map((id, index) => [id, ["a", "b", "c"][index], fixture.task])
          )
          expect(records[0]).toMatchObject({
            originalValue: "original a",
            metadata: { city: "New York" },
            locked: false,
            bookmarked: false
          })
          // The other project's task is carol's only; a checker of this project does not see it.
          expect(yield* alice!.taskRecords({ taskId: fixture.otherTask }).pipe(Stream.runDrain, Effect.flip)).toMatchObject({
            _tag: "ReviewNotFound",
            resource: "Task"
          })
          // Records are for their task's checkers: the sibling task of Alice's project is Bob's only (issue 22).
          expect(yield* alice!.taskRecords({ taskId: fixture.siblingTask }).pipe(Stream.runDrain, Effect.flip)).toMatchObject({
            _tag: "ReviewNotFound",
            resource: "Task"
          })
          expect((yield* collect(carol!.taskRecords({ taskId: fixture.otherTask }))).map((record) => record.uid)).toEqual(["z"])
          expect((yield* collect(admin!.taskRecords({ taskId: fixture.otherTask }))).map((record) => record.uid)).toEqual(["z"])
          expect(yield* admin!.taskRecords({ taskId: 999_999 }).pipe(Stream.runDrain, Effect.flip)).toMatchObject({
            _tag: "ReviewNotFound"
          })

          expect((yield* collect(alice!.reviews({ pageSize: 1 }))).map((review) => review.id)).toEqual([aliceOnA, aliceOnB])
          // A checker's list holds only their own reviews, whichever checker they name.
          expect((yield* collect(alice!.reviews({ checkerId: fixture.bob.id }))).map((review) => review.id)).toEqual([aliceOnA, aliceOnB])
          expect((yield* collect(bob!.reviews({}))).map((review) => review.id)).toEqual([bobOnA])
          expect((yield* collect(admin!.reviews({ taskId: fixture.task }))).map((review) => review.id)).toEqual([
            aliceOnA,
            bobOnA,
            aliceOnB
          ])
          expect((yield* collect(admin!.reviews({ checkerId: fixture.bob.id }))).map((review) => review.id)).toEqual([bobOnA])
          expect((yield* collect(admin!.reviews({ taskRecordId: fixture.records[1]! }))).map((review) => review.id)).toEqual([aliceOnB])
          expect(yield* collect(admin!.reviews({ status: "DONE" }))).toEqual([])
        })
      )

      it.scoped("a checker chooses, cancels and comments on their review; refusals are typed", () =>
        Effect.gen(function* () {
          const { fixture, aliceOnA, bobOnA } = yield* reviewedFixture("rpc2")
          const [correct] = fixture.choices
          const [alice, carol] = yield* Effect.forEach([fixture.alice, fixture.carol], reviewClient)
          const chosen = yield* alice!.chooseReview({ reviewId: aliceOnA, choiceId: correct, note: "looks right" })
          expect(chosen).toMatchObject({
            id: aliceOnA,
            status: "DONE",
            choiceId: correct,
            note: "looks right",
            checkerId: fixture.alice.id
          })
          const verbs = yield* runSql(
            (sql) =>
              sql<{
                verb: string
              }>`SELECT verb FROM review_actions WHERE target_type = 'TaskRecordReview' AND target_id = ${aliceOnA} ORDER BY id`
          )
          expect(verbs.map((row) => row.verb)).toEqual(["reviewed", "commented"])
          expect(yield* alice!.chooseReview({ reviewId: aliceOnA, choiceId: null })).toMatchObject({
            status: "PENDING",
            choiceId: null,
            note: "looks right"
          })

          expect(yield* alice!.chooseReview({ reviewId: bobOnA, choiceId: correct }).pipe(Effect.flip)).toMatchObject({
            _tag: "ReviewWriteForbidden"
          })
          expect(yield* carol!.chooseReview({ reviewId: aliceOnA, choiceId: correct }).pipe(Effect.flip)).toMatchObject({
            _tag: "ReviewNotFound",
            resource: "TaskRecordReview"
          })
          const otherGroup = yield* create(fixture.admin, "choice-groups", "ChoiceGroup", { name: "Elsewhere" })
          const foreign = yield* create(
            fixture.admin,
            "choices",
            "Choice",
            { name: "Foreign" },
            { choiceGroup: ["ChoiceGroup", otherGroup] }
          )
          expect(yield* alice!.chooseReview({ reviewId: aliceOnA, choiceId: foreign }).pipe(Effect.flip)).toMatchObject({
            _tag: "ReviewFieldInvalid",
            field: "choice"
          })
        })
      )

      it.scoped("reviewers lock, unlock and bookmark records; a locked record refuses other reviewers' choices", () =>
        Effect.gen(function* () {
          const { fixture, bobOnA } = yield* reviewedFixture("rpc3")
          const [a, , c] = fixture.records
          const [correct] = fixture.choices
          const [alice, bob, carol] = yield* Effect.forEach([fixture.alice, fixture.bob, fixture.carol], reviewClient)
          expect(yield* alice!.lockRecord({ recordId: a! })).toMatchObject({ id: a, locked: true, lockedById: fixture.alice.id })
          expect(yield* bob!.lockRecord({ recordId: a! }).pipe(Effect.flip)).toMatchObject({ _tag: "ReviewFieldInvalid", field: "locked" })
          expect(yield* bob!.chooseReview({ reviewId: bobOnA, choiceId: correct }).pipe(Effect.flip)).toMatchObject({
            _tag: "ReviewWriteForbidden",
            reason: "This resource was locked by a user."
          })
          expect(yield* bob!.unlockRecord({ recordId: a! }).pipe(Effect.flip)).toMatchObject({
            _tag: "ReviewFieldInvalid",
            field: "locked"
          })
          expect(yield* alice!.unlockRecord({ recordId: a! })).toMatchObject({ locked: false, lockedById: null })
          expect(yield* bob!.chooseReview({ reviewId: bobOnA, choiceId: correct })).toMatchObject({ status: "DONE" })
          // Not a reviewer of the record (carol), no review of it (c): refused; an unknown record is not found.
          expect(yield* carol!.lockRecord({ recordId: a! }).pipe(Effect.flip)).toMatchObject({ _tag: "ReviewWriteForbidden" })
          expect(yield* alice!.lockRecord({ recordId: c! }).pipe(Effect.flip)).toMatchObject({ _tag: "ReviewWriteForbidden" })
          expect(yield* alice!.lockRecord({ recordId: 999_999 }).pipe(Effect.flip)).toMatchObject({
            _tag: "ReviewNotFound",
            resource: "TaskRecord"
          })

          expect(yield* alice!.bookmarkRecord({ recordId: a!, bookmarked: true })).toMatchObject({ bookmarked: true })
          const bobsView = yield* collect(bob!.taskRecords({ taskId: fixture.task }))
          expect(bobsView.find((record) => record.id === a)).toMatchObject({ bookmarked: false })
          expect(yield* alice!.bookmarkRecord({ recordId: a!, bookmarked: false })).toMatchObject({ bookmarked: false })
          const verbs = yield* runSql(
            (sql) =>
              sql<{ verb: string }>`SELECT verb FROM review_actions WHERE target_type = 'TaskRecord' AND target_id = ${a!} ORDER BY id`
          )
          expect(verbs.map((row) => row.verb)).toEqual(["locked", "unlocked", "bookmarked", "unbookmarked"])
        })
      )
    })
  })
}
