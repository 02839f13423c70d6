import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { attribute } from "../../src/domain/review/Attribution.ts"
import { refreshRecords } from "../../src/domain/review/RecordState.ts"
import { applyReviewChange, loadReview } from "../../src/domain/review/ReviewUpdate.ts"
import { testServerLayer } from "../helpers/server.ts"
import { api, create, type Fixture, items, runSql, seed } from "./helpers.ts"
import { assign, putReview } from "./workflow.ts"

/** A small seeded generator (mulberry32), so that a failing sequence can be replayed. */
const generator = (seedValue: number) => {
  let state = seedValue >>> 0
  return (below: number) => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below)
  }
}

interface ReviewRow {
  readonly id: number
  readonly taskId: number
  readonly checkerId: number
  readonly round: number
  readonly status: string
  readonly choiceId: number | null
}

const allReviews = (task: number) =>
  runSql(
    (sql) => sql<ReviewRow>`
    SELECT v.id, rec.task_id AS "taskId", v.checker_id AS "checkerId", v.round, v.status, v.choice_id AS "choiceId"
    FROM review_task_record_reviews v JOIN review_task_records rec ON rec.id = v.task_record_id WHERE rec.task_id = ${task}`
  )

/** The statistics recomputed from scratch: per (checker, round) done/pending, per (checker, round, choice) counts. */
const fromScratch = (reviews: ReadonlyArray<ReviewRow>) => {
  const progress = new Map<string, { done: number; pending: number }>()
  const choices = new Map<string, number>()
  for (const review of reviews) {
    const key = `${review.checkerId}/${review.round}`
    const row = progress.get(key) ?? { done: 0, pending: 0 }
    progress.set(key, review.status === "DONE" ? { ...row, done: row.done + 1 } : { ...row, pending: row.pending + 1 })
    if (review.choiceId !== null) choices.set(`${key}/${review.choiceId}`, (choices.get(`${key}/${review.choiceId}`) ?? 0) + 1)
  }
  return {
    progress: [...progress].map(([key, row]) => `${key} ${row.done}/${row.pending}`).sort(),
    choices: [...choices].map(([key, count]) => `${key} ${count}`).sort()
  }
}

type Stat = { id: string; attributes: Record<string, number>; relationships: Record<string, { data: { id: string } }> }

const served = (fixture: Fixture) =>
  Effect.gen(function* () {
    const progress = items(
      yield* api(fixture.alice, "GET", `/api/v1/task-user-statistics/?filter[task]=${fixture.task}`)
    ) as unknown as ReadonlyArray<Stat>
    const choices = items(
      yield* api(fixture.alice, "GET", `/api/v1/task-user-choice-statistics/?filter[task]=${fixture.task}`)
    ) as unknown as ReadonlyArray<Stat>
    for (const row of progress) {
      expect(row.attributes.totalCount).toBe(row.attributes.doneCount! + row.attributes.pendingCount!)
      expect(row.attributes.progress).toBeCloseTo((row.attributes.doneCount! / row.attributes.totalCount!) * 100)
    }
    return {
      progress: progress
        .map(
          (row) =>
            `${row.relationships.checker!.data.id}/${row.attributes.round} ${row.attributes.doneCount}/${row.attributes.pendingCount}`
        )
        .sort(),
      choices: choices
        .map(
          (row) =>
            `${row.relationships.checker!.data.id}/${row.attributes.round}/${row.relationships.choice!.data.id} ${row.attributes.count}`
        )
        .sort()
    }
  })

/** The reviews the random sequence knows about, kept in step with the database. */
type Known = Array<{ readonly id: number; readonly recordId: number }>

/** One random step: mostly review updates, sometimes a new attribution or a deletion, each in its own transaction. */
const randomStep = (
  fixture: Fixture,
  random: (below: number) => number,
  records: ReadonlyArray<number>,
  choices: ReadonlyArray<number | null>,
  known: Known
) =>
  runSql((sql) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const dice = random(100)
          if (known.length === 0 || dice < 12) {
            const recordId = records[random(records.length)]!
            const checkerId = random(2) === 0 ? fixture.alice.id : fixture.bob.id
            // The attribution rules refuse some of these (a second review by the same checker, too many reviews).
            const created = yield* attribute({ recordId, checkerId, round: 1 + random(3) }).pipe(
              Effect.catchTag("AttributionRefused", () => Effect.succeed(undefined))
            )
            if (created !== undefined) known.push({ id: created, recordId })
            return
          }
          const index = random(known.length)
          const target = known[index]!
          if (dice < 18) {
            yield* sql`DELETE FROM review_task_record_reviews WHERE id = ${target.id}`
            yield* refreshRecords([target.recordId])
            known.splice(index, 1)
            return
          }
          const review = yield* loadReview(target.id)
          const note = random(3) === 0 ? { note: random(2) === 0 ? "" : `note ${random(5)}` } : {}
          yield* applyReviewChange(review!, { choiceId: choices[random(choices.length)]!, ...note })
        })
      )
      .pipe(Effect.provideService(SqlClient.SqlClient, sql))
  )

describe("review API statistics", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("equal the counts recomputed from scratch after a seeded random sequence of 1 000 review updates", () =>
      Effect.gen(function* () {
        const fixture = yield* seed("st1")
        const third = yield* create(fixture.admin, "choices", "Choice", { name: "Unsure" }, { choiceGroup: ["ChoiceGroup", fixture.group] })
        const extra = yield* Effect.forEach([1, 2, 3, 4, 5], (index) =>
          create(
            fixture.admin,
            "task-records",
            "TaskRecord",
            { uid: `s${index}`, originalValue: `value ${index}` },
            { task: ["Task", fixture.task] }
          )
        )
        const records = [...fixture.records, ...extra]
        const random = generator(20261124)
        const known: Known = []
        for (let step = 0; step < 1000; step++)
          yield* randomStep(fixture, random, records, [fixture.choices[0], fixture.choices[1], third, null], known)
        const reviews = yield* allReviews(fixture.task)
        expect(reviews.map((review) => review.id).sort()).toEqual(known.map((review) => review.id).sort())
        expect(reviews.length).toBeGreaterThan(5)
        expect(yield* served(fixture)).toEqual(fromScratch(reviews))
        // The records' derived state agrees with a recomputation from scratch too.
        const drift = yield* runSql(
          (sql) => sql`
          SELECT rec.id FROM review_task_records rec JOIN review_tasks t ON t.id = rec.task_id
          CROSS JOIN LATERAL (
            SELECT count(*) FILTER (WHERE coalesce(v.note, '') <> '') > 0 AS notes, count(DISTINCT v.choice_id) > 1 AS disagreements,
              CASE WHEN count(*) = 0 THEN 'UNASSIGNED' WHEN count(*) FILTER (WHERE v.status = 'DONE') >= t.rounds THEN 'DONE' ELSE 'ASSIGNED' END AS status
            FROM review_task_record_reviews v WHERE v.task_record_id = rec.id) expected
          WHERE rec.task_id = ${fixture.task}
            AND (rec.has_notes, rec.has_disagreements, rec.status) IS DISTINCT FROM (expected.notes, expected.disagreements, expected.status)`
        )
        expect(drift).toEqual([])
      })
    )

    it.effect("keep a checker's row when nothing is pending any more, scope rows to the tasks one checks, and filter", () =>
      Effect.gen(function* () {
        const fixture = yield* seed("st2")
        const review = yield* assign(fixture, fixture.records[0]!, fixture.alice.id)
        const before = items(yield* api(fixture.bob, "GET", "/api/v1/task-user-statistics/"))
        expect(before.map((row) => row.attributes)).toEqual([{ round: 1, doneCount: 0, pendingCount: 1, totalCount: 1, progress: 0 }])
        expect((yield* putReview(fixture.alice, review, {}, fixture.choices[1])).status).toBe(200)
        const after = yield* api(fixture.alice, "GET", `/api/v1/task-user-statistics/?filter[checker]=${fixture.alice.id}&include=checker`)
        expect(items(after).map((row) => [row.id, row.attributes])).toEqual([
          [before[0]!.id, { round: 1, doneCount: 1, pendingCount: 0, totalCount: 1, progress: 100 }]
        ])
        expect((after.body.included as ReadonlyArray<{ type: string }>).map((item) => item.type)).toEqual(["User"])
        expect(items(yield* api(fixture.carol, "GET", "/api/v1/task-user-statistics/"))).toEqual([])
        expect(items(yield* api(fixture.alice, "GET", `/api/v1/task-user-statistics/?filter[round]=2`))).toEqual([])
        const choices = yield* api(fixture.alice, "GET", `/api/v1/task-user-choice-statistics/?filter[choice]=${fixture.choices[1]}`)
        expect(items(choices).map((row) => row.attributes)).toEqual([{ round: 1, count: 1 }])
        expect(items(choices)[0]!.type).toBe("TaskChoiceStatistics")
        expect([...new Set((choices.body.included as ReadonlyArray<{ type: string }>).map((item) => item.type))].sort()).toEqual([
          "Choice",
          "Task",
          "User"
        ])
        expect((yield* api(fixture.alice, "GET", `/api/v1/task-user-choice-statistics/${items(choices)[0]!.id}/`)).status).toBe(200)
        expect((yield* putReview(fixture.alice, review, {}, null)).status).toBe(200)
        expect(items(yield* api(fixture.alice, "GET", "/api/v1/task-user-choice-statistics/"))).toEqual([])
        expect((yield* api(fixture.alice, "DELETE", "/api/v1/task-user-statistics/1/")).status).toBe(405)
      })
    )
  })
})
