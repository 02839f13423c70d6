import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import yazl from "yazl"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { request, testServerLayer } from "../helpers/server.ts"
import { api, type Caller, create, firstError, items, resource, runSql, seed, upload } from "./helpers.ts"

const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64")
const gif = Buffer.from("R0lGODlhAwACAIAAAAAAAP///yH5BAEAAAAALAAAAAADAAIAAAICRF4AOw==", "base64")

const zipOf = (files: ReadonlyArray<readonly [string, Buffer]>) =>
  Effect.async<Buffer>((resume) => {
    const zip = new yazl.ZipFile()
    for (const [name, content] of files) zip.addBuffer(content, name)
    zip.addEmptyDirectory("folder")
    const chunks: Array<Buffer> = []
    zip.outputStream.on("data", (chunk: Buffer) => chunks.push(chunk))
    zip.outputStream.on("end", () => resume(Effect.succeed(Buffer.concat(chunks))))
    zip.end()
  })

const download = (caller: Caller, path: string) =>
  Effect.gen(function* () {
    const response = yield* request(path, { headers: { cookie: caller.cookie } })
    return { status: response.status, headers: response.headers, bytes: Buffer.from(yield* Effect.promise(() => response.arrayBuffer())) }
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`review API media and exports on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect(
        "attaches the images of a ZIP to records by uid, ignoring other types and unmatched names, and serves them to checkers",
        () =>
          Effect.gen(function* () {
            const fixture = yield* seed("md1")
            const zip = yield* zipOf([
              ["a.png", png],
              ["pictures/b.gif", gif],
              ["c.txt", Buffer.from("not an image")],
              ["unknown.png", png]
            ])
            const answer = yield* upload(fixture.admin, "/api/v1/task-record-media/upload/", { task: String(fixture.task) }, [
              ["zip_file", "media.zip", zip]
            ])
            expect(answer.status).toBe(200)
            expect(answer.body).toEqual({ meta: { created: 2, replaced: 0, ignored: 2 } })
            const listed = yield* api(fixture.alice, "GET", "/api/v1/task-record-media/?sort=created_at")
            const media = items(listed)
            expect(media.map((item) => item.attributes?.uid).sort()).toEqual(["a", "b"])
            const gifMedia = media.find((item) => item.attributes?.uid === "b")!
            expect(gifMedia.attributes).toMatchObject({
              mimeType: "image/gif",
              mediaType: "IMAGE",
              taskId: String(fixture.task),
              taskRecordId: String(fixture.records[1])
            })
            const [size] = yield* runSql(
              (sql) =>
                sql<{ width: number; height: number }>`SELECT width, height FROM review_task_record_media WHERE id = ${Number(gifMedia.id)}`
            )
            expect(size).toEqual({ width: 3, height: 2 })
            expect(items(yield* api(fixture.carol, "GET", "/api/v1/task-record-media/"))).toHaveLength(0)
            const file = yield* download(fixture.alice, new URL(String(gifMedia.attributes?.file)).pathname)
            expect(file.status).toBe(200)
            expect(file.headers.get("content-type")).toBe("image/gif")
            expect(file.bytes.equals(gif)).toBe(true)
            expect((yield* download(fixture.carol, new URL(String(gifMedia.attributes?.file)).pathname)).status).toBe(404)
            const record = yield* api(fixture.alice, "GET", `/api/v1/task-records/?filter[task]=${fixture.task}&sort=uid&include=medias`)
            expect(items(record)[0]!.relationships?.medias).toMatchObject({ meta: { count: 1 } })
            // Replacing keeps one media per record uid.
            const again = yield* upload(
              fixture.admin,
              "/api/v1/task-record-media/upload/",
              { task: String(fixture.task), only_one_per_task_record: "true" },
              [["zip_file", "media.zip", yield* zipOf([["a.png", png]])]]
            )
            expect(again.body).toEqual({ meta: { created: 1, replaced: 1, ignored: 0 } })
            expect(items(yield* api(fixture.alice, "GET", "/api/v1/task-record-media/"))).toHaveLength(2)
            const broken = yield* upload(fixture.admin, "/api/v1/task-record-media/upload/", { task: String(fixture.task) }, [
              ["zip_file", "media.zip", "not a zip"]
            ])
            expect(broken.status).toBe(400)
            expect(firstError(broken).source?.pointer).toBe("/data/attributes/zip_file")
            expect(
              (yield* upload(fixture.alice, "/api/v1/task-record-media/upload/", { task: String(fixture.task) }, [
                ["zip_file", "media.zip", zip]
              ])).status
            ).toBe(403)
          })
      )

      it.effect("exports a task's records and reviews as CSV for staff", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("md2")
          const [first] = fixture.records
          const reviewId = yield* create(
            fixture.admin,
            "task-record-reviews",
            "TaskRecordReview",
            {},
            { taskRecord: ["TaskRecord", first!], checker: ["User", fixture.alice.id] }
          )
          yield* create(
            fixture.admin,
            "task-record-reviews",
            "TaskRecordReview",
            {},
            { taskRecord: ["TaskRecord", first!], checker: ["User", fixture.bob.id] }
          )
          yield* runSql(
            (sql) =>
              sql`UPDATE review_task_record_reviews SET status = 'DONE', choice_id = ${fixture.choices[1]}, note = 'says "no", really', alternative_value = 'Paris' WHERE id = ${reviewId}`
          )
          const reviews = yield* download(fixture.admin, `/api/v1/tasks/${fixture.task}/export/reviews/`)
          expect(reviews.status).toBe(200)
          expect(reviews.headers.get("content-type")).toBe("text/csv;charset=UTF-8")
          expect(reviews.headers.get("content-disposition")).toBe(`attachment;filename="task-${fixture.task}-reviews.csv"`)
          const lines = reviews.bytes.toString("utf8").split("\r\n")
          expect(lines[0]).toBe("id,status,checker,round,choice,note,alternative_value,task_record_id,task_record_uid")
          expect(lines[1]).toBe(`${reviewId},DONE,alicemd2,1,wrong,"says ""no"", really",Paris,${first},a`)
          expect(lines[2]).toBe(`${reviewId + 1},PENDING,bobmd2,2,,,,${first},a`)
          const records = (yield* download(fixture.admin, `/api/v1/tasks/${fixture.task}/export/records/`)).bytes
            .toString("utf8")
            .split("\r\n")
          expect(records[0]).toBe(
            "id,uid,original_value,predicted_value,metadata,status,rounds,priority,link,embeddable_link,locked,has_notes,has_disagreements"
          )
          expect(records[1]).toBe(`${first},a,original a,predicted a,"{""city"":""New York""}",ASSIGNED,2,1,,,false,false,false`)
          expect(records).toHaveLength(5)
          expect((yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.task}/export/records/`)).status).toBe(403)
          expect(resource(yield* api(fixture.admin, "GET", `/api/v1/tasks/${fixture.task}/`)).type).toBe("Task")
        })
      )
    })
  })
}
