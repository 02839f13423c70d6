import * as fs from "node:fs/promises"
import { Context, Effect, Layer, Schema } from "effect"
import { TaskFile } from "../../src/domain/task/Task.ts"
import { Engine } from "../../src/engine/Engine.ts"
import * as JobKind from "../../src/engine/JobKind.ts"
import { TestServer, type TestServerOptions, testServerLayer } from "../helpers/server.ts"

/** A kind whose result is a file it writes, like a batch download's archive. */
export const FileJob = JobKind.make({
  name: "file",
  payload: Schema.Struct({ path: Schema.String, content: Schema.String }),
  success: TaskFile,
  error: Schema.Never
})

const fileJobLayer = FileJob.toLayer(({ path, content }) =>
  Effect.promise(() => fs.writeFile(path, content)).pipe(Effect.as(TaskFile.make({ path })))
)

/** The engine of the running test server, to queue tasks as a start endpoint would. */
export class ServerEngine extends Context.Tag("test/ServerEngine")<ServerEngine, Engine>() {}

/** A real Quarry (see testServerLayer) whose engine also runs FileJob, with its Engine exposed to tests. */
export const taskServerLayer = (options: TestServerOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const server = yield* TestServer
      yield* Layer.build(fileJobLayer).pipe(Effect.provide(server.context))
      return Layer.succeed(ServerEngine, Context.get(server.context, Engine))
    })
  ).pipe(Layer.provideMerge(testServerLayer(options)))
