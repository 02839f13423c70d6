import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Context, Effect, Layer, Redacted, Stream } from "effect"
import { Users } from "../../src/domain/user/Users.ts"
import { SleepJob } from "../../src/engine/kinds/SleepJob.ts"
import { TaskRpcs } from "../../src/rpc/TaskRpcs.ts"
import { ServerEngine, taskServerLayer } from "../engine/server.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { request, TestServer } from "../helpers/server.ts"

/**
 * A typed client of the task RPCs of the test server. Credentials go in HTTP headers of the transport (RPC
 * message headers are not what the endpoint authenticates); a refused request (401) fails instead of waiting
 * for RPC messages that never come.
 */
const taskClient = (headers: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const http = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client) =>
        client.pipe(HttpClient.mapRequest(HttpClientRequest.setHeaders(headers)), HttpClient.filterStatusOk)
      )
    ).pipe(Layer.provide(FetchHttpClient.layer))
    const protocol = RpcClient.layerProtocolHttp({ url: `${server.url}/rpc` }).pipe(Layer.provide([http, RpcSerialization.layerNdjson]))
    return yield* RpcClient.make(TaskRpcs).pipe(Effect.provide(yield* Layer.build(protocol)))
  })

const submitSleep = (steps: number, stepMillis: number, userId = "local") =>
  Effect.flatMap(ServerEngine, (engine) => engine.submit(SleepJob, { steps, stepMillis }, { userId }))

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Task RPCs on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(taskServerLayer({ database }), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped("watchTasks streams a task's progress and ends with its final state", () =>
        Effect.gen(function* () {
          const client = yield* taskClient()
          const task = yield* submitSleep(10, 60)
          const updates = Chunk.toReadonlyArray(
            yield* client.watchTasks({ id: task.id }).pipe(Stream.runCollect, Effect.timeout("10 seconds"))
          )
          const progress = updates.filter((update) => update.state === "RUNNING").map((update) => update.progress ?? 0)
          expect(progress.filter((fraction) => fraction > 0 && fraction < 1).length).toBeGreaterThanOrEqual(2)
          expect(progress).toEqual([...progress].sort((a, b) => a - b))
          expect(updates.at(-1)).toMatchObject({ id: task.id, state: "DONE", progress: 1, result: 10 })
          expect(updates.filter((update) => update.state === "DONE")).toHaveLength(1)
        })
      )

      it.scoped("lists, gets and stops the caller's tasks; another user's task is forbidden", () =>
        Effect.gen(function* () {
          const client = yield* taskClient()
          const mine = yield* submitSleep(1_000, 20)
          const others = yield* submitSleep(1_000, 20, "bob")
          const listed = yield* client.listTasks({ filter: "SleepTask" })
          expect(listed.map((task) => task.id)).toContain(mine.id)
          expect(listed.map((task) => task.id)).not.toContain(others.id)
          expect((yield* client.getTask({ id: mine.name })).id).toBe(mine.id)
          expect(yield* client.getTask({ id: others.id }).pipe(Effect.flip)).toMatchObject({ _tag: "TaskForbidden" })
          expect(yield* client.watchTasks({ id: "missing" }).pipe(Stream.runDrain, Effect.flip)).toMatchObject({ _tag: "TaskNotFound" })
          expect(yield* client.stopTask({ id: mine.id })).toBe(true)
          expect(yield* client.stopTask({ id: mine.id })).toBe(false)
          expect((yield* client.getTask({ id: mine.id })).state).toBe("CANCELLED")
          const again = yield* submitSleep(1_000, 20)
          expect((yield* client.stopAll()).map((task) => task.id)).toEqual([again.id])
          yield* Effect.flatMap(ServerEngine, (engine) => engine.stopAll("bob"))
        })
      )
    })
  })
}

describe("Task RPCs in SERVER mode", () => {
  layer(taskServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.scoped("authenticate like the HTTP API: 401 without credentials, the signed-in user's tasks with them", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* Context.get(server.context, Users).add({ login: "alice", password: Redacted.make("s3cret") })
        const refused = yield* request("/rpc", { method: "POST", body: "{}" })
        expect(refused.status).toBe(401)
        expect(refused.headers.get("www-authenticate")).toBe('Basic realm="datashare"')

        const alices = yield* submitSleep(1, 0, "alice")
        const locals = yield* submitSleep(1, 0, "local")
        const client = yield* taskClient({ authorization: `Basic ${Buffer.from("alice:s3cret").toString("base64")}` })
        const listed = yield* client.listTasks({})
        expect(listed.map((task) => task.id)).toEqual([alices.id])
        expect(yield* client.getTask({ id: locals.id }).pipe(Effect.flip)).toMatchObject({ _tag: "TaskForbidden" })
        const wrongPassword = yield* taskClient({ authorization: `Basic ${Buffer.from("alice:wrong").toString("base64")}` })
        expect(yield* wrongPassword.listTasks({}).pipe(Effect.flip, Effect.timeout("5 seconds"))).toMatchObject({ _tag: "RpcClientError" })
        // The header carrying the caller to the handlers cannot be forged: the endpoint overwrites it.
        const forging = yield* taskClient({
          authorization: `Basic ${Buffer.from("alice:s3cret").toString("base64")}`,
          "x-quarry-rpc-caller": "local"
        })
        expect((yield* forging.listTasks({})).map((task) => task.id)).toEqual([alices.id])
      })
    )
  })
})
