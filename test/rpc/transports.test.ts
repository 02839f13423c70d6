import { RpcSerialization } from "@effect/rpc"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Context, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import { TaskNotFound } from "../../src/domain/task/TaskErrors.ts"
import { SleepJob } from "../../src/engine/kinds/SleepJob.ts"
import { ServerEngine, taskServerLayer } from "../engine/server.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { makeQuarryClient } from "../../src/rpc/client.ts"
import { InvalidPayload } from "../../src/rpc/RefuseNul.ts"
import { request, TestServer, testServerLayer } from "../helpers/server.ts"
import { eventually, openSubscriptions, quarryClient, transports } from "./client.ts"

const submitSleep = (steps: number, stepMillis: number) =>
  Effect.flatMap(ServerEngine, (engine) => engine.submit(SleepJob, { steps, stepMillis }, { userId: "local" }))

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`RPC transports on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(taskServerLayer({ database }), { timeout: 60_000, excludeTestServices: true })((it) => {
      for (const transport of transports) {
        it.scoped(`${transport}: calls, typed errors and streams`, () =>
          Effect.gen(function* () {
            const client = yield* quarryClient(transport)
            const task = yield* submitSleep(5, 30)
            expect((yield* client.listTasks({})).map((listed) => listed.id)).toContain(task.id)
            const missing = yield* client.getTask({ id: "missing" }).pipe(Effect.flip)
            expect(missing).toBeInstanceOf(TaskNotFound)
            expect(missing).toMatchObject({ _tag: "TaskNotFound", task: "missing" })
            const updates = yield* client.watchTasks({ id: task.id }).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
            expect(updates.at(-1)).toMatchObject({ id: task.id, state: "DONE", result: 5 })
          })
        )

        it.scoped(`${transport}: a payload holding a NUL character fails with InvalidPayload before any handler runs`, () =>
          Effect.gen(function* () {
            const client = yield* quarryClient(transport)
            const refused = yield* client.getTask({ id: "task\0id" }).pipe(Effect.flip)
            expect(refused).toBeInstanceOf(InvalidPayload)
            expect(refused.message).toContain("NUL characters are not supported")
            const streamed = yield* client.watchTasks({ id: "task\0id" }).pipe(Stream.runDrain, Effect.flip)
            expect(streamed).toBeInstanceOf(InvalidPayload)
            expect(yield* client.getTask({ id: "task-id" }).pipe(Effect.flip)).toBeInstanceOf(TaskNotFound)
          })
        )

        it.scoped(`${transport}: a stream cancelled mid-way releases its server-side subscription`, () =>
          Effect.gen(function* () {
            const client = yield* quarryClient(transport)
            const running = yield* submitSleep(1_000, 20)
            const before = yield* openSubscriptions
            // Every task of the caller, without end: the server holds a task-event subscription while it lasts.
            const seen: Array<string> = []
            const watching = yield* client.watchManyTasks({}).pipe(
              Stream.runForEach((task) => Effect.sync(() => seen.push(task.id))),
              Effect.fork
            )
            yield* eventually(openSubscriptions, before + 1)
            yield* eventually(
              Effect.sync(() => (seen.includes(running.id) ? 1 : 0)),
              1
            )
            yield* Fiber.interrupt(watching)
            yield* eventually(openSubscriptions, before)
            expect(yield* client.stopTask({ id: running.id })).toBe(true)
          })
        )
      }

      it.scoped("watchManyTasks follows several tasks to their end; cleanTask and cleanFinishedTasks remove finished ones", () =>
        Effect.gen(function* () {
          const client = yield* quarryClient("websocket")
          const first = yield* submitSleep(3, 20)
          const second = yield* submitSleep(4, 20)
          const updates = Chunk.toReadonlyArray(yield* Stream.runCollect(client.watchManyTasks({ ids: [first.id, second.name] })))
          for (const task of [first, second]) {
            const own = updates.filter((update) => update.id === task.id)
            expect(own.at(-1)?.state).toBe("DONE")
            expect(own.filter((update) => update.state === "DONE")).toHaveLength(1)
          }
          expect(yield* client.watchManyTasks({ ids: [first.id, "missing"] }).pipe(Stream.runDrain, Effect.flip)).toBeInstanceOf(
            TaskNotFound
          )

          const running = yield* submitSleep(1_000, 20)
          expect(yield* client.cleanTask({ id: running.id }).pipe(Effect.flip)).toMatchObject({ _tag: "TaskNotFinished" })
          expect((yield* client.cleanTask({ id: first.id })).id).toBe(first.id)
          expect(yield* client.getTask({ id: first.id }).pipe(Effect.flip)).toBeInstanceOf(TaskNotFound)
          yield* client.stopTask({ id: running.id })
          const cleaned = (yield* client.cleanFinishedTasks()).map((task) => task.id)
          expect(cleaned).toEqual(expect.arrayContaining([second.id, running.id]))
          expect(yield* client.listTasks({})).toEqual([])
        })
      )

      it.effect("serves each transport at its own path only", () =>
        Effect.gen(function* () {
          // MessagePack in, MessagePack out.
          const parser = RpcSerialization.msgPack.unsafeMake()
          const call = parser.encode({ _tag: "Request", id: "1", tag: "listTasks", payload: {}, headers: [] })
          const answer = yield* request("/rpc/msgpack", {
            method: "POST",
            body: call as Uint8Array,
            headers: { "content-type": "application/msgpack" }
          })
          expect(answer.headers.get("content-type")).toBe("application/msgpack")
          const decoded = parser.decode(new Uint8Array(yield* Effect.promise(() => answer.arrayBuffer())))
          expect(decoded).toEqual([{ _tag: "Exit", requestId: "1", exit: { _tag: "Success", value: expect.any(Array) } }])
          expect((yield* request("/rpc/other", { method: "POST", body: "" })).status).toBe(404)
          // A request without an upgrade to the WebSocket path is not an RPC call.
          expect((yield* request("/rpc/ws", { method: "POST", body: "" })).status).toBe(404)
        })
      )
    })
  })
}

describe("RPC WebSockets at shutdown", () => {
  it.live("a server stopping closes the WebSockets still open instead of waiting for their clients", () =>
    Effect.gen(function* () {
      const serverScope = yield* Scope.make()
      const clientScope = yield* Scope.make()
      const server = Context.get(yield* Layer.buildWithScope(testServerLayer({ database: "pglite" }), serverScope), TestServer)
      const client = yield* makeQuarryClient({ url: server.url, transport: "websocket" }).pipe(Scope.extend(clientScope))
      yield* client.startIndex({})
      const watching = yield* client.watchManyTasks({}).pipe(Stream.runDrain, Effect.fork)
      yield* Scope.close(serverScope, Exit.void).pipe(
        Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the server waited for its WebSocket clients") })
      )
      yield* Fiber.interrupt(watching)
      yield* Scope.close(clientScope, Exit.void)
    })
  )
})
