import { RpcClientError } from "@effect/rpc/RpcClientError"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { WebSocket } from "ws"
import { DocumentForbidden } from "../../src/domain/document/DocumentErrors.ts"
import { ProjectForbidden } from "../../src/domain/project/ProjectErrors.ts"
import { Forbidden } from "../../src/domain/RequestErrors.ts"
import { indexDocuments, signIn } from "../helpers/marks.ts"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, withUsers } from "../helpers/users.ts"
import { quarryClient } from "./client.ts"

/** The status and WWW-Authenticate header answered to a WebSocket opening at `/rpc/ws`. */
const refusedUpgrade = (headers: Record<string, string>) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ status: number; challenge: string | undefined }>((resume) => {
      const socket = new WebSocket(`${server.url.replace("http", "ws")}/rpc/ws`, { headers })
      // With this listener the refused handshake is ours to end: reading the answer, then dropping the request.
      socket.on("unexpected-response", (request, response) => {
        resume(Effect.succeed({ status: response.statusCode ?? 0, challenge: response.headers["www-authenticate"] }))
        request.destroy()
      })
      socket.on("open", () => {
        resume(Effect.succeed({ status: 101, challenge: undefined }))
        socket.close()
      })
    })
  )

describe("RPC access in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.scoped("every group refuses a project outside the caller's, with the HTTP API's errors", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* addUser("alice", "s3cret", { projects: ["alpha"] })
        yield* addUser("bob", "pa55word", { projects: ["beta"] })
        const [id] = yield* indexDocuments("beta", 2)
        const alice = yield* quarryClient("ndjson", { _tag: "Basic", user: "alice", password: "s3cret" })

        expect(yield* alice.searchDocuments({ query: "text", projects: ["beta"] }).pipe(Effect.flip)).toBeInstanceOf(Forbidden)
        expect(yield* alice.searchRaw({ projects: ["alpha", "beta"], body: {} }).pipe(Effect.flip)).toBeInstanceOf(Forbidden)
        expect(yield* alice.getDocument({ project: "beta", id: id! }).pipe(Effect.flip)).toBeInstanceOf(DocumentForbidden)
        expect(yield* alice.getContent({ project: "beta", id: id! }).pipe(Effect.flip)).toBeInstanceOf(DocumentForbidden)
        const refusals: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          alice.star({ project: "beta", ids: [id!] }),
          alice.markRead({ project: "beta", ids: [id!] }),
          alice.tagDocument({ project: "beta", id: id!, tags: ["mine"] }),
          alice.listTags({ project: "beta", id: id! }),
          alice.startIndex({ options: { defaultProject: "beta" } }),
          alice.startScan({ path: server.workDir, options: { defaultProject: "beta" } })
        ]
        for (const refused of refusals) {
          expect(yield* Effect.flip(refused)).toBeInstanceOf(ProjectForbidden)
        }
        expect(yield* alice.listTasks({})).toEqual([])

        // Bob, with an API key over a WebSocket, reads and marks the documents of his project.
        const key = yield* withUsers((users) => users.createApiKey("bob")).pipe(Effect.orDie)
        const bob = yield* quarryClient("websocket", { _tag: "ApiKey", key: Redacted.value(key) })
        expect((yield* bob.searchDocuments({ query: "text", projects: ["beta"] })).total).toBe(2)
        expect((yield* bob.getDocument({ project: "beta", id: id! })).id).toBe(id)
        expect(yield* bob.star({ project: "beta", ids: [id!] })).toBe(1)
        const task = yield* bob.startIndex({ options: { defaultProject: "beta" } })
        expect(task.userId).toBe("bob")
        expect(yield* alice.getTask({ id: task.id }).pipe(Effect.flip)).toMatchObject({ _tag: "TaskForbidden" })
        yield* bob.stopTask({ id: task.id })
      })
    )

    it.scoped("authenticate each transport like the HTTP API: session cookie, refused credentials, refused upgrades", () =>
      Effect.gen(function* () {
        yield* addUser("carol", "s3cret", { projects: ["gamma"] })
        const session = yield* signIn("carol", "s3cret")
        const carol = yield* quarryClient("msgpack", { _tag: "Session", cookie: session.cookie })
        expect(yield* carol.starredDocuments({ project: "gamma" })).toEqual([])

        for (const transport of ["ndjson", "msgpack", "websocket"] as const) {
          const intruder = yield* quarryClient(transport, { _tag: "Basic", user: "carol", password: "wrong" })
          expect(yield* intruder.listTasks({}).pipe(Effect.flip, Effect.timeout("10 seconds"))).toBeInstanceOf(RpcClientError)
        }
        expect(yield* refusedUpgrade({})).toEqual({ status: 401, challenge: 'Basic realm="datashare"' })
        expect(yield* refusedUpgrade({ cookie: session.cookie })).toEqual({ status: 101, challenge: undefined })
        // Another site's page cannot use the browser's cookies over a WebSocket; the server's own pages can.
        expect(yield* refusedUpgrade({ cookie: session.cookie, origin: "https://elsewhere.example" })).toMatchObject({ status: 403 })
        const server = yield* TestServer
        expect(yield* refusedUpgrade({ cookie: session.cookie, origin: server.url })).toMatchObject({ status: 101 })
      })
    )
  })
})
