import { randomBytes } from "node:crypto"
import { describe, expect, it as plain, layer } from "@effect/vitest"
import { Effect } from "effect"
import { appliesTo, normalisePath } from "../../src/domain/note/Note.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { send, signIn } from "../helpers/marks.ts"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"

const local = "local-datashare"
const json = { accept: "application/json" }

const notesAt = (path: string, headers: Record<string, string> = json) =>
  Effect.flatMap(request(path, { headers }), (response) =>
    Effect.map(bodyJson(response), (body) => ({
      status: response.status,
      paths: Array.isArray(body) ? body.map((note: { path: string }) => note.path) : body
    }))
  )

describe("note paths", () => {
  plain("apply to the same path and to paths below it, never to a sibling sharing a prefix", () => {
    expect(appliesTo("/vault/a", "/vault/a")).toBe(true)
    expect(appliesTo("/vault/a", "/vault/a/b/c.txt")).toBe(true)
    expect(appliesTo("/vault/a", "/vault/ab")).toBe(false)
    expect(appliesTo("/", "/anything")).toBe(true)
    expect(normalisePath("vault/a/")).toBe("/vault/a")
    expect(normalisePath("/")).toBe("/")
  })
})

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const skipped = skip ? ` (skipped: ${postgresSkipReason})` : ""

  describe.skipIf(skip)(`notes in LOCAL mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("PUT writes a note (201 new, 200 replaced); GET lists them with their project; a path sees its folders' notes", () =>
        Effect.gen(function* () {
          expect((yield* send("PUT", `/api/${local}/notes/vault/a`, { note: "first", variant: "danger" })).status).toBe(201)
          expect((yield* send("PUT", `/api/${local}/notes//vault/a`, { note: "replaced", variant: "danger" })).status).toBe(200)
          expect((yield* send("PUT", `/api/${local}/notes/vault/a/b/`, { note: "deeper" })).status).toBe(201)
          expect((yield* send("PUT", `/api/${local}/notes/vault/ab`, { note: "sibling", variant: "warning" })).status).toBe(201)

          const all = (yield* bodyJson(yield* request(`/api/${local}/notes`))) as ReadonlyArray<Record<string, unknown>>
          expect(all.map((note) => note.path)).toEqual(["/vault/a", "/vault/a/b", "/vault/ab"])
          expect(all[0]).toEqual({
            project: expect.objectContaining({ name: local, sourcePath: `file:///vault/${local}`, label: local }),
            note: "replaced",
            path: "/vault/a",
            variant: "danger"
          })
          expect(all[1]).toMatchObject({ note: "deeper", variant: "info" })

          expect(yield* notesAt(`/api/${local}/notes/vault/a/b/report.pdf`)).toEqual({ status: 200, paths: ["/vault/a", "/vault/a/b"] })
          expect(yield* notesAt(`/api/${local}/notes//vault/ab/x.txt`)).toEqual({ status: 200, paths: ["/vault/ab"] })
          expect(yield* notesAt(`/api/${local}/notes/vault/a`)).toEqual({ status: 200, paths: ["/vault/a"] })
          expect(yield* notesAt(`/api/${local}/notes/elsewhere/file.txt`)).toEqual({ status: 200, paths: [] })
          expect(yield* notesAt("/api/never-granted/notes")).toEqual({ status: 403, paths: { error: expect.any(String) } })
          expect(yield* notesAt("/api/never-granted/notes/vault/a")).toEqual({ status: 403, paths: { error: expect.any(String) } })
        })
      )

      it.effect("DELETE removes a note (204, then 404); bad bodies answer 400", () =>
        Effect.gen(function* () {
          yield* send("PUT", `/api/${local}/notes/gone/soon`, { note: "bye" })
          expect((yield* request(`/api/${local}/notes/gone/soon`, { method: "DELETE" })).status).toBe(204)
          expect((yield* request(`/api/${local}/notes/gone/soon`, { method: "DELETE", headers: json })).status).toBe(404)
          expect(yield* notesAt(`/api/${local}/notes/gone/soon`)).toEqual({ status: 200, paths: [] })
          for (const body of [
            { note: "x", variant: "purple" },
            { note: "" },
            { note: 3 },
            { variant: "info" },
            "{oops",
            { note: "n".repeat(65_537) }
          ]) {
            const response = yield* send("PUT", `/api/${local}/notes/bad`, body)
            expect({ body: typeof body === "string" ? body : Object.keys(body), status: response.status }).toMatchObject({ status: 400 })
            expect(yield* bodyJson(response)).toEqual({ error: expect.any(String) })
          }
          expect(yield* notesAt(`/api/${local}/notes/bad`)).toEqual({ status: 200, paths: [] })

          // Paths up to 4096 characters (more than a b-tree entry holds); longer ones answer 400.
          const deep = `/${randomBytes(3072).toString("base64url").slice(0, 4095)}`
          expect((yield* send("PUT", `/api/${local}/notes${encodeURI(deep)}`, { note: "deep" })).status).toBe(201)
          expect((yield* send("PUT", `/api/${local}/notes${encodeURI(deep)}`, { note: "deeper" })).status).toBe(200)
          const deepNotes = (yield* bodyJson(yield* request(`/api/${local}/notes${encodeURI(deep)}`))) as ReadonlyArray<{
            path: string
            note: string
          }>
          expect(deepNotes.map((note) => [note.path, note.note])).toEqual([[deep, "deeper"]])
          expect((yield* send("PUT", `/api/${local}/notes${encodeURI(`${deep}a`)}`, { note: "too deep" })).status).toBe(400)
        })
      )
    })
  })
}

describe("notes in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("answer 403 outside the caller's projects, and let only administrators write", () =>
      Effect.gen(function* () {
        yield* addUser("root", "pw", { projects: ["granted"], admin: true })
        yield* addUser("alice", "pw", { projects: ["granted"] })
        const root = yield* signIn("root", "pw")
        const alice = yield* signIn("alice", "pw")
        expect((yield* send("PUT", "/api/granted/notes/docs", { note: "by root" }, root)).status).toBe(201)
        expect((yield* send("PUT", "/api/secret/notes/docs", { note: "elsewhere" }, root)).status).toBe(403)
        expect((yield* send("PUT", "/api/granted/notes/docs", { note: "by alice" }, alice)).status).toBe(403)
        expect((yield* request("/api/granted/notes/docs", { method: "DELETE", headers: alice })).status).toBe(403)
        expect(yield* notesAt("/api/granted/notes/docs/a.txt", alice)).toEqual({ status: 200, paths: ["/docs"] })
        expect((yield* notesAt("/api/secret/notes", alice)).status).toBe(403)
        expect((yield* notesAt("/api/secret/notes/docs/a.txt", alice)).status).toBe(403)
      })
    )
  })
})
