import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"

describe("review API in LOCAL mode", () => {
  layer(testServerLayer({ database: "pglite" }))((it) => {
    it.effect("gives the local user a users row, as staff, so it can manage and read review content", () =>
      Effect.gen(function* () {
        const me = (yield* bodyJson(yield* request("/api/v1/users/me/"))) as {
          data: { attributes: { username: string; isStaff: boolean } }
        }
        expect(me.data.attributes).toMatchObject({ username: "local", isStaff: true })
        const created = yield* request("/api/v1/projects/", {
          method: "POST",
          headers: { "content-type": "application/vnd.api+json" },
          body: JSON.stringify({ data: { type: "Project", attributes: { name: "Local project" } } })
        })
        expect(created.status).toBe(201)
        const projects = (yield* bodyJson(yield* request("/api/v1/projects/"))) as { data: ReadonlyArray<{ attributes: { name: string } }> }
        expect(projects.data.map((project) => project.attributes.name)).toEqual(["Local project"])
      })
    )
  })
})
