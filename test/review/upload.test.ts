import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { api, firstError, items, runSql, seed, upload } from "./helpers.ts"

const recordCount = (task: number) =>
  Effect.map(
    runSql((sql) => sql<{ count: number }>`SELECT count(*)::int AS count FROM review_task_records WHERE task_id = ${task}`),
    (rows) => rows[0]!.count
  )

/** `rows` records with uids r0…, quoted values with commas, quotes and line breaks, and JSON metadata. */
const bigCsv = (rows: number, badRow?: number) => {
  const lines = ["uid,original_value,predicted_value,metadata"]
  for (let index = 0; index < rows; index++) {
    lines.push(
      index === badRow
        ? `r${index},"only two values"`
        : `r${index},"Street ${index}, ""main""\nfloor 2",predicted ${index},"{""n"": ${index}}"`
    )
  }
  return `${lines.join("\r\n")}\r\n`
}

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`review API CSV uploads on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("imports records, updating those whose uid the task already has and creating the others", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("up1")
          const csv = 'uid,original_value,predicted_value\r\na,new original a,\r\nnew,"x, y",z\r\n,no uid,\r\n'
          const answer = yield* upload(fixture.admin, "/api/v1/task-records/upload/", { task: String(fixture.task) }, [
            ["csv_file", "records.csv", csv]
          ])
          expect(answer.status).toBe(200)
          expect(answer.body).toEqual({ meta: { created: 2, updated: 1 } })
          const records = items(
            yield* api(fixture.admin, "GET", `/api/v1/task-records/?filter[task]=${fixture.task}&sort=uid&page[size]=100`)
          )
          const byUid = Object.fromEntries(records.map((record) => [String(record.attributes?.uid), record.attributes]))
          // Missing columns of an updated record become null, as the reference's upsert does.
          expect(byUid.a).toMatchObject({ originalValue: "new original a", predictedValue: null, metadata: null })
          expect(byUid.new).toMatchObject({ originalValue: "x, y", predictedValue: "z" })
          expect(records).toHaveLength(5)
          const unknown = yield* upload(fixture.admin, "/api/v1/task-records/upload/", { task: String(fixture.task) }, [
            ["csv_file", "r.csv", "uid,colour\r\na,red\r\n"]
          ])
          expect(unknown.status).toBe(400)
          expect(firstError(unknown)).toMatchObject({
            detail: "Unknown column in the CSV header: colour.",
            source: { pointer: "/data/attributes/csv_file" }
          })
          const noTask = yield* upload(fixture.admin, "/api/v1/task-records/upload/", {}, [["csv_file", "r.csv", csv]])
          expect(firstError(noTask)).toMatchObject({ detail: "This field is required.", source: { pointer: "/data/attributes/task" } })
          expect(
            (yield* upload(fixture.alice, "/api/v1/task-records/upload/", { task: String(fixture.task) }, [["csv_file", "r.csv", csv]]))
              .status
          ).toBe(403)
          expect((yield* api(fixture.admin, "POST", "/api/v1/task-records/upload/", { data: {} })).status).toBe(415)
          const nul = yield* upload(fixture.admin, "/api/v1/task-records/upload/", { task: String(fixture.task) }, [
            ["csv_file", "r.csv", "uid,original_value\r\nq,fine\r\nr,bad\u0000value\r\n"]
          ])
          expect(firstError(nul).detail).toBe("Row 3 contains a NUL character.")
        })
      )

      it.effect("imports alternative values from name,value rows", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("up2")
          const answer = yield* upload(fixture.admin, "/api/v1/alternative-values/upload/", { choice_group: String(fixture.group) }, [
            ["csv_file", "values.csv", "name,value\nParis,PAR\nLyon,\n"]
          ])
          expect(answer.body).toEqual({ meta: { created: 2 } })
          const values = items(yield* api(fixture.alice, "GET", `/api/v1/alternative-values/?filter[choice_group]=${fixture.group}`))
          expect(values.map((value) => value.attributes)).toEqual([
            { name: "Paris", value: "PAR" },
            { name: "Lyon", value: "Lyon" }
          ])
          const bad = yield* upload(fixture.admin, "/api/v1/alternative-values/upload/", { choice_group: String(fixture.group) }, [
            ["csv_file", "v.csv", "name,colour\nx,y\n"]
          ])
          expect(bad.status).toBe(400)
        })
      )

      // The large import runs on the embedded database only, to keep the suite quick.
      it.effect.skipIf(database !== "pglite")("imports 10 000 rows completely, or nothing at all when one row is bad", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("up3")
          const refused = yield* upload(fixture.admin, "/api/v1/task-records/upload/", { task: String(fixture.otherTask) }, [
            ["csv_file", "big.csv", bigCsv(10_000, 9_998)]
          ])
          expect(refused.status).toBe(400)
          expect(firstError(refused).detail).toBe("Row 10000 has 2 values for 4 columns.")
          expect(yield* recordCount(fixture.otherTask)).toBe(1)
          const answer = yield* upload(fixture.admin, "/api/v1/task-records/upload/", { task: String(fixture.otherTask) }, [
            ["csv_file", "big.csv", bigCsv(10_000)]
          ])
          expect(answer.body).toEqual({ meta: { created: 10_000, updated: 0 } })
          expect(yield* recordCount(fixture.otherTask)).toBe(10_001)
          const [sample] = yield* runSql(
            (sql) => sql<{ original: string; metadata: unknown }>`
            SELECT original_value AS original, metadata FROM review_task_records WHERE task_id = ${fixture.otherTask} AND uid = 'r9999'`
          )
          expect(sample).toEqual({ original: 'Street 9999, "main"\nfloor 2', metadata: '{"n": 9999}' })
          // Importing the same file again updates every record instead of creating new ones.
          const again = yield* upload(fixture.admin, "/api/v1/task-records/upload/", { task: String(fixture.otherTask) }, [
            ["csv_file", "big.csv", bigCsv(10_000)]
          ])
          expect(again.body).toEqual({ meta: { created: 0, updated: 10_000 } })
          expect(yield* recordCount(fixture.otherTask)).toBe(10_001)
        })
      )
    })
  })
}
