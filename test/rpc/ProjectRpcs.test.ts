import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"
import { quarryClient } from "./client.ts"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Project RPCs on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 120_000, excludeTestServices: true })((it) => {
      it.scoped("create, list, get, update and delete projects; refusals are the legacy API's typed errors", () =>
        Effect.gen(function* () {
          const { workDir } = yield* TestServer
          const client = yield* quarryClient()
          const created = yield* client.createProject({ name: "ships", sourcePath: workDir, label: "Ships", description: null })
          expect(created).toMatchObject({ name: "ships", label: "Ships", description: null })
          expect(yield* client.createProject({ name: "ships", sourcePath: workDir }).pipe(Effect.flip)).toMatchObject({
            _tag: "ProjectExists",
            id: "ships"
          })
          expect(yield* client.createProject({ name: "bad/name", sourcePath: workDir }).pipe(Effect.flip)).toMatchObject({
            _tag: "InvalidProject"
          })
          expect(yield* client.createProject({ name: "outside", sourcePath: "/etc" }).pipe(Effect.flip)).toMatchObject({
            _tag: "InvalidProject"
          })

          expect((yield* client.listProjects()).map((project) => project.name)).toContain("ships")
          expect(yield* client.getProject({ id: "ships" })).toEqual(created)
          expect(yield* client.getProject({ id: "unknown" }).pipe(Effect.flip)).toMatchObject({ _tag: "ProjectNotFound", id: "unknown" })
          const updated = yield* client.updateProject({ id: "ships", label: "Vessels", description: "tankers" })
          expect(updated).toMatchObject({ name: "ships", label: "Vessels", description: "tankers", creationDate: created.creationDate })
          expect(yield* client.updateProject({ id: "unknown", label: "x" }).pipe(Effect.flip)).toMatchObject({ _tag: "ProjectNotFound" })

          yield* client.deleteProject({ id: "ships" })
          expect(yield* client.getProject({ id: "ships" }).pipe(Effect.flip)).toMatchObject({ _tag: "ProjectNotFound" })
          expect(yield* client.deleteProject({ id: "ships" }).pipe(Effect.flip)).toMatchObject({ _tag: "NotYourProject", project: "ships" })
        })
      )
    })
  })
}

describe("Project RPCs in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped("only administrators change projects; users see and reach only their own", () =>
      Effect.gen(function* () {
        const { workDir } = yield* TestServer
        yield* addUser("root", "pw-r", { admin: true, projects: ["alpha", "beta"] })
        yield* addUser("alice", "pw-a", { projects: ["alpha"] })
        const admin = yield* quarryClient("ndjson", { _tag: "Basic", user: "root", password: "pw-r" })
        const alice = yield* quarryClient("ndjson", { _tag: "Basic", user: "alice", password: "pw-a" })
        yield* admin.createProject({ name: "alpha", sourcePath: workDir })
        yield* admin.createProject({ name: "beta", sourcePath: workDir })
        expect(yield* alice.createProject({ name: "gamma", sourcePath: workDir }).pipe(Effect.flip)).toMatchObject({
          _tag: "ProjectForbidden",
          project: "gamma"
        })
        expect((yield* alice.listProjects()).map((project) => project.name)).toEqual(["alpha"])
        expect((yield* alice.getProject({ id: "alpha" })).name).toBe("alpha")
        expect(yield* alice.getProject({ id: "beta" }).pipe(Effect.flip)).toMatchObject({ _tag: "ProjectForbidden", project: "beta" })
        expect(yield* alice.updateProject({ id: "alpha", label: "mine" }).pipe(Effect.flip)).toMatchObject({
          _tag: "ProjectForbidden",
          project: "alpha"
        })
        expect(yield* alice.deleteProject({ id: "beta" }).pipe(Effect.flip)).toMatchObject({ _tag: "NotYourProject", project: "beta" })
        expect(yield* alice.deleteProject({ id: "alpha" }).pipe(Effect.flip)).toMatchObject({ _tag: "ProjectForbidden" })
        yield* admin.deleteProject({ id: "beta" })
        expect((yield* admin.listProjects()).map((project) => project.name)).toEqual(["alpha"])
      })
    )
  })
})
