import * as path from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Task } from "../../src/domain/task/Task.ts"
import { SleepJob } from "../../src/engine/kinds/SleepJob.ts"
import { TallyJob } from "../engine/fixtures/kinds.ts"
import { FileJob, ServerEngine, taskServerLayer } from "../engine/server.ts"
import { eventually } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, bodyText, request, TestServer } from "../helpers/server.ts"

const submitSleep = (steps: number, stepMillis: number, userId = "local", failWith?: string) =>
  Effect.flatMap(ServerEngine, (engine) =>
    engine.submit(SleepJob, failWith === undefined ? { steps, stepMillis } : { steps, stepMillis, failWith }, { userId })
  )

const taskPath = (task: Task, suffix = "") => `/api/task/${encodeURIComponent(task.name)}${suffix}`
const getJson = (pathAndQuery: string) => Effect.flatMap(request(pathAndQuery), bodyJson)
const finished = (task: Task) => eventually(getJson(taskPath(task)), (view) => (view as { state: string }).state !== "RUNNING")
const put = (pathAndQuery: string) => request(pathAndQuery, { method: "PUT" })

const localUser = { id: "local", name: null, email: null, provider: "local" }

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Legacy task API on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(taskServerLayer({ database }), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("shows a task's progress while it runs, then DONE with its result", () =>
        Effect.gen(function* () {
          const task = yield* submitSleep(20, 50)
          const running = yield* eventually(getJson(taskPath(task)), (view) => {
            const progress = (view as { progress: unknown }).progress
            return typeof progress === "number" && progress > 0 && progress < 1
          })
          expect(running).toMatchObject({ name: task.name, state: "RUNNING", user: localUser })
          expect(yield* finished(task)).toEqual({
            name: task.name,
            state: "DONE",
            progress: 1,
            user: expect.objectContaining(localUser),
            result: 20
          })
        })
      )

      it.effect("lists only the caller's tasks, filtered by name, a queued task as RUNNING with progress 0", () =>
        Effect.gen(function* () {
          const engine = yield* ServerEngine
          // No handler for this kind runs in the server: the task stays queued.
          const queued = yield* engine.submit(TallyJob, { steps: 1, stepMillis: 0 }, { userId: "local" })
          const done = yield* submitSleep(1, 0, "local")
          const others = yield* submitSleep(1, 0, "bob")
          yield* finished(done)
          const names = ((yield* getJson("/api/task/all")) as ReadonlyArray<{ name: string }>).map((view) => view.name)
          expect(names).toEqual(expect.arrayContaining([queued.name, done.name]))
          expect(names).not.toContain(others.name)
          const filtered = yield* getJson(`/api/task/all?filter=${encodeURIComponent("Tally.*@")}`)
          expect(filtered).toEqual([{ name: queued.name, state: "RUNNING", progress: 0, user: expect.objectContaining(localUser) }])
          expect(yield* getJson(`/api/task/all?filter=${encodeURIComponent("TallyTask@")}`)).toHaveLength(1)
          expect(yield* bodyJson(yield* put(`/api/task/stop/${encodeURIComponent(queued.name)}`))).toBe(true)
        })
      )

      it.effect("keeps a failed task's message and answers 204 for its result", () =>
        Effect.gen(function* () {
          const task = yield* submitSleep(1, 0, "local", "disk full")
          const view = yield* finished(task)
          expect(view).toMatchObject({ state: "ERROR", error: "SleepFailed: disk full" })
          expect(view).not.toHaveProperty("result")
          const result = yield* request(taskPath(task, "/result"))
          expect(result.status).toBe(204)
        })
      )

      it.effect("answers a task's result as JSON, a file result as an attachment, 404 unknown and 403 another user's", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const engine = yield* ServerEngine
          const done = yield* submitSleep(2, 0)
          yield* finished(done)
          const json = yield* request(taskPath(done, "/result"))
          expect(json.status).toBe(200)
          expect(yield* bodyText(json)).toBe("2")

          const file = path.join(server.workDir, "archive.zip")
          const fileTask = yield* engine.submit(FileJob, { path: file, content: "zip bytes" }, { userId: "local" })
          expect(yield* finished(fileTask)).toMatchObject({ state: "DONE", result: file })
          const attachment = yield* request(taskPath(fileTask, "/result"))
          expect(attachment.status).toBe(200)
          expect(attachment.headers.get("content-disposition")).toBe('attachment;filename="archive.zip"')
          expect(attachment.headers.get("content-type")).toBe("application/zip")
          expect(yield* bodyText(attachment)).toBe("zip bytes")

          expect((yield* request("/api/task/quarry.tasks.SleepTask@unknown/result")).status).toBe(404)
          expect((yield* request("/api/task/quarry.tasks.SleepTask@unknown")).status).toBe(404)
          const others = yield* submitSleep(1, 0, "bob")
          expect((yield* request(taskPath(others, "/result"))).status).toBe(403)
          expect((yield* request(taskPath(others))).status).toBe(403)
        })
      )

      it.effect("stops a running task (true, then false), CANCELLED; 404 unknown, 403 another user's", () =>
        Effect.gen(function* () {
          const task = yield* submitSleep(1_000, 20)
          yield* eventually(
            getJson(taskPath(task)),
            (view) => typeof (view as { progress: unknown }).progress === "number" && (view as { progress: number }).progress > 0
          )
          const stopped = yield* put(`/api/task/stop/${encodeURIComponent(task.name)}`)
          expect(stopped.status).toBe(200)
          expect(yield* bodyJson(stopped)).toBe(true)
          expect(yield* getJson(taskPath(task))).toMatchObject({ state: "CANCELLED" })
          expect(yield* bodyJson(yield* put(`/api/task/stop/${encodeURIComponent(task.name)}`))).toBe(false)
          expect((yield* put("/api/task/stop/quarry.tasks.SleepTask@unknown")).status).toBe(404)
          const others = yield* submitSleep(1_000, 20, "bob")
          expect((yield* put(`/api/task/stop/${encodeURIComponent(others.name)}`)).status).toBe(403)
          expect(yield* Effect.flatMap(ServerEngine, (engine) => engine.stopAll("bob"))).toHaveLength(1)
        })
      )

      it.effect("stopAll maps each of the caller's cancelled tasks to true", () =>
        Effect.gen(function* () {
          const tasks = [yield* submitSleep(1_000, 20), yield* submitSleep(1_000, 20)]
          const answer = yield* put("/api/task/stopAll")
          expect(answer.status).toBe(200)
          expect(yield* bodyJson(answer)).toEqual(Object.fromEntries(tasks.map((task) => [task.name, true])))
          expect(yield* bodyJson(yield* put("/api/task/stopAll"))).toEqual({})
        })
      )

      it.effect("cleans the caller's finished tasks, all at once or one by name; a running one cannot be cleaned", () =>
        Effect.gen(function* () {
          const done = yield* submitSleep(1, 0)
          yield* finished(done)
          const running = yield* submitSleep(1_000, 20)
          const others = yield* submitSleep(1, 0, "bob")
          const one = yield* request(`/api/task/clean/${encodeURIComponent(done.name)}`, { method: "DELETE" })
          expect(one.status).toBe(200)
          expect((yield* request(taskPath(done))).status).toBe(404)
          expect((yield* request(`/api/task/clean/${encodeURIComponent(running.name)}`, { method: "DELETE" })).status).toBe(403)
          expect((yield* request(`/api/task/clean/${encodeURIComponent(others.name)}`, { method: "DELETE" })).status).toBe(403)
          expect((yield* request("/api/task/clean/quarry.tasks.SleepTask@unknown", { method: "DELETE" })).status).toBe(404)

          yield* put(`/api/task/stop/${encodeURIComponent(running.name)}`)
          const cleaned = yield* request("/api/task/clean", { method: "POST" })
          expect(cleaned.status).toBe(200)
          const names = ((yield* bodyJson(cleaned)) as ReadonlyArray<{ name: string }>).map((view) => view.name)
          expect(names).toContain(running.name)
          expect(names).not.toContain(others.name)
          expect(yield* getJson("/api/task/all")).toEqual([])
        })
      )

      it.effect("answers preflights with the allowed methods", () =>
        Effect.gen(function* () {
          for (const [target, methods] of [
            ["/api/task/clean/some.Task@x", "OPTIONS, DELETE"],
            ["/api/task/stop/some.Task@x", "OPTIONS, PUT"],
            ["/api/task/stopAll", "OPTIONS, PUT"]
          ] as const) {
            const response = yield* request(target, { method: "OPTIONS" })
            expect(response.status).toBe(200)
            expect(response.headers.get("access-control-allow-methods")).toBe(methods)
          }
        })
      )
    })
  })
}
