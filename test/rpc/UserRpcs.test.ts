import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"
import { quarryClient } from "./client.ts"

const project = "local-datashare"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`User RPCs on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 120_000, excludeTestServices: true })((it) => {
      it.scoped("the current user, and its history recorded, listed, filtered and deleted", () =>
        Effect.gen(function* () {
          const client = yield* quarryClient()
          const me = yield* client.currentUser()
          expect(me).toMatchObject({ user: { id: "local" }, isAdmin: true })
          expect(me.projects.map((granted) => granted.name)).toContain(project)

          yield* client.recordHistoryEvent({ type: "DOCUMENT", projectIds: [project], name: "first", uri: "/ds/first" })
          yield* client.recordHistoryEvent({ type: "DOCUMENT", projectIds: [project], name: "second", uri: "/ds/second" })
          yield* client.recordHistoryEvent({ type: "SEARCH", projectIds: [project], name: "query", uri: "/search?q=tanker" })
          const documents = yield* client.userHistory({ type: "DOCUMENT", sort: "name", descending: false })
          expect(documents.total).toBe(2)
          expect(documents.items.map((event) => event.name)).toEqual(["first", "second"])
          expect(
            (yield* client.userHistory({ type: "DOCUMENT", sort: "name", from: 1, size: 1 })).items.map((event) => event.name)
          ).toEqual(["first"])
          expect((yield* client.userHistory({ type: "DOCUMENT", projects: ["elsewhere"] })).total).toBe(0)
          expect(yield* client.userHistory({ type: "DOCUMENT", sort: "size" }).pipe(Effect.flip)).toMatchObject({
            _tag: "InvalidHistoryRequest"
          })
          expect(yield* client.recordHistoryEvent({ type: "DOCUMENT", projectIds: [], uri: "" }).pipe(Effect.flip)).toMatchObject({
            _tag: "InvalidHistoryRequest"
          })

          yield* client.deleteHistoryEvent({ id: documents.items[0]!.id })
          expect((yield* client.userHistory({ type: "DOCUMENT" })).items.map((event) => event.name)).toEqual(["second"])
          yield* client.deleteHistory({ type: "DOCUMENT" })
          expect((yield* client.userHistory({ type: "DOCUMENT" })).total).toBe(0)
          expect((yield* client.userHistory({ type: "SEARCH" })).total).toBe(1)
        })
      )
    })
  })
}

describe("User RPCs in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped("each user sees itself and its own history, and records events only on its projects", () =>
      Effect.gen(function* () {
        yield* addUser("alice", "pw-a", { projects: ["alpha"] })
        yield* addUser("bob", "pw-b", { projects: ["beta"] })
        const alice = yield* quarryClient("ndjson", { _tag: "Basic", user: "alice", password: "pw-a" })
        const bob = yield* quarryClient("ndjson", { _tag: "Basic", user: "bob", password: "pw-b" })
        const me = yield* alice.currentUser()
        expect(me).toMatchObject({ user: { id: "alice" }, isAdmin: false })
        expect(me.projects.map((granted) => granted.name)).toEqual(["alpha"])
        expect(
          yield* alice.recordHistoryEvent({ type: "SEARCH", projectIds: ["beta"], uri: "/search?q=x" }).pipe(Effect.flip)
        ).toMatchObject({ _tag: "ProjectForbidden", project: "beta" })
        yield* bob.recordHistoryEvent({ type: "SEARCH", projectIds: ["beta"], uri: "/search?q=bob" })
        expect((yield* alice.userHistory({ type: "SEARCH" })).total).toBe(0)
        const bobs = yield* bob.userHistory({ type: "SEARCH" })
        expect(bobs.items.map((event) => [event.user.id, event.uri])).toEqual([["bob", "/search?q=bob"]])
        // Deleting another user's event by its id leaves it in place.
        yield* alice.deleteHistoryEvent({ id: bobs.items[0]!.id })
        expect((yield* bob.userHistory({ type: "SEARCH" })).total).toBe(1)
      })
    )
  })
})
