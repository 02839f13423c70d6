import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Schema } from "effect"
import { isTaskFile } from "../../domain/task/Task.ts"
import { Tasks } from "../../domain/task/Tasks.ts"
import { allowMethods, empty, json, pathParam, queryParam, stream } from "../../transport/Http.ts"
import { NotFound } from "../../domain/RequestErrors.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { publicRoute, route } from "../Router.ts"
import { LegacyTaskView, liveTaskView, StopAllAnswer } from "./TaskApi.ts"

const tag = "task"
const views = Schema.Array(LegacyTaskView)
const caller = Effect.map(CurrentUser, (current) => current.user)

const contentTypes: Readonly<Record<string, string>> = { ".zip": "application/zip", ".csv": "text/csv", ".json": "application/json" }

/** A file result as an attachment; 404 when the file is gone (batch download archives expire). */
const attachment = (file: string) =>
  Effect.gen(function* () {
    const exists = yield* Effect.promise(() =>
      fs.promises.access(file, fs.constants.R_OK).then(
        () => true,
        () => false
      )
    )
    if (!exists) return yield* new NotFound({ message: `the result file ${path.basename(file)} no longer exists` })
    const contentType = contentTypes[path.extname(file).toLowerCase()] ?? "application/octet-stream"
    return stream(fs.createReadStream(file), contentType, { "Content-Disposition": `attachment;filename="${path.basename(file)}"` })
  })

export const taskRoutes = [
  route(
    "GET",
    "/api/task/all",
    Effect.gen(function* () {
      const user = yield* caller
      const tasks = yield* (yield* Tasks).list(user.id, yield* queryParam("filter"))
      return json(yield* Effect.forEach(tasks, (task) => liveTaskView(task, user)))
    }),
    {
      summary: "The caller's tasks, any state; `filter` keeps those whose name matches it",
      tag,
      query: {
        filter:
          "pattern found (ignoring case) in the task name: `|`, `^`, `$`, `.*` and `.` as in a regular expression, everything else literal"
      },
      response: views
    }
  ),
  route(
    "GET",
    "/api/task/:id",
    Effect.gen(function* () {
      const user = yield* caller
      return json(yield* liveTaskView(yield* (yield* Tasks).find(user.id, yield* pathParam("id")), user))
    }),
    { summary: "One of the caller's tasks by name (404 unknown, 403 another user's)", tag, response: LegacyTaskView }
  ),
  route(
    "GET",
    "/api/task/:id/result",
    Effect.gen(function* () {
      const user = yield* caller
      const task = yield* (yield* Tasks).find(user.id, yield* pathParam("id"))
      if (task.result === null || task.result === undefined) return empty(204)
      return isTaskFile(task.result) ? yield* attachment(task.result.path) : json(task.result)
    }),
    { summary: "A task's result: JSON, a file as an attachment, or 204 when there is none (404 unknown, 403 another user's)", tag }
  ),
  route(
    "POST",
    "/api/task/clean",
    Effect.gen(function* () {
      const user = yield* caller
      const removed = yield* (yield* Tasks).cleanFinished(user.id)
      return json(yield* Effect.forEach(removed, (task) => liveTaskView(task, user)))
    }),
    { summary: "Removes the caller's finished tasks (DONE, ERROR, CANCELLED) and returns them", tag, response: views }
  ),
  // Preflights are public: browsers send them without credentials.
  publicRoute("OPTIONS", "/api/task/clean/:taskName:", Effect.succeed(allowMethods("OPTIONS, DELETE")), {
    summary: "Methods allowed on a task to clean",
    tag
  }),
  route(
    "DELETE",
    "/api/task/clean/:taskName:",
    Effect.gen(function* () {
      yield* (yield* Tasks).clean((yield* caller).id, yield* pathParam("taskName"))
      return empty(200)
    }),
    { summary: "Removes one finished task (404 unknown, 403 another user's or not finished)", tag }
  ),
  publicRoute("OPTIONS", "/api/task/stop/:taskName:", Effect.succeed(allowMethods("OPTIONS, PUT")), {
    summary: "Methods allowed on a task to stop",
    tag
  }),
  route(
    "PUT",
    "/api/task/stop/:taskId:",
    Effect.gen(function* () {
      return json(yield* (yield* Tasks).stop((yield* caller).id, yield* pathParam("taskId")))
    }),
    {
      summary: "Cancels a queued or running task: true if it was cancelled, false if it had already finished",
      tag,
      response: Schema.Boolean
    }
  ),
  publicRoute("OPTIONS", "/api/task/stopAll", Effect.succeed(allowMethods("OPTIONS, PUT")), { summary: "Methods allowed on stopAll", tag }),
  route(
    "PUT",
    "/api/task/stopAll",
    Effect.gen(function* () {
      const cancelled = yield* (yield* Tasks).stopAll((yield* caller).id)
      return json(Object.fromEntries(cancelled.map((task) => [task.name, true])))
    }),
    { summary: "Cancels every queued or running task of the caller: each task's name mapped to true", tag, response: StopAllAnswer }
  )
]
