import { randomBytes } from "node:crypto"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { query, send, signIn } from "../helpers/marks.ts"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"

const json = { accept: "application/json" }
const legacyDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)

interface Event {
  readonly id: number
  readonly name: string | null
  readonly uri: string
  readonly creationDate: string
  readonly modificationDate: string
}

const history = (parameters: string, headers: Record<string, string> = json) =>
  Effect.flatMap(request(`/api/users/me/history?${parameters}`, { headers }), (response) =>
    Effect.map(bodyJson(response), (body) => ({ status: response.status, body: body as { items: ReadonlyArray<Event>; total: number } }))
  )

const names = (parameters: string, headers: Record<string, string> = json) =>
  Effect.map(history(parameters, headers), ({ body }) => body.items.map((event) => event.name))

const record = (event: Record<string, unknown>, headers: Record<string, string> = {}) =>
  send("PUT", "/api/users/me/history", event, headers)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const skipped = skip ? ` (skipped: ${postgresSkipReason})` : ""

  describe.skipIf(skip)(`users and history in LOCAL mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("users/me shows the details and every granted project, stored or not", () =>
        Effect.gen(function* () {
          const before = yield* bodyJson(yield* request("/api/users/me"))
          expect(before).toEqual({
            uid: "local",
            groups_by_applications: { datashare: ["local-datashare"] },
            projects: [
              {
                name: "local-datashare",
                sourcePath: "file:///vault/local-datashare",
                label: "local-datashare",
                description: null,
                publisherName: null,
                maintainerName: null,
                logoUrl: null,
                sourceUrl: null,
                creationDate: legacyDate,
                updateDate: legacyDate
              }
            ]
          })
          yield* query((sql) => sql`INSERT INTO projects (id, label, source_path) VALUES ('stored', 'Stored', '/data/stored') RETURNING id`)
          const after = (yield* bodyJson(yield* request("/api/users/me"))) as {
            projects: ReadonlyArray<{ name: string; label: string; sourcePath: string }>
          }
          expect(after.projects.map((project) => [project.name, project.label, project.sourcePath])).toEqual([
            ["local-datashare", "local-datashare", "file:///vault/local-datashare"],
            ["stored", "Stored", "file:///data/stored"]
          ])
        })
      )

      it.effect("PUT adds or refreshes events by uri; GET filters by type and projects, sorts under both spellings, and pages", () =>
        Effect.gen(function* () {
          expect((yield* record({ type: "SEARCH", projectIds: ["local-datashare"], name: "alpha", uri: "?q=alpha" })).status).toBe(200)
          yield* record({ type: "SEARCH", projectIds: [], name: "beta", uri: "?q=beta" })
          yield* record({ type: "DOCUMENT", projectIds: ["local-datashare"], name: "doc.txt", uri: "/ds/local-datashare/abc" })
          yield* record({ type: "SEARCH", projectIds: ["local-datashare"], name: "gamma", uri: "?q=gamma" })

          const searches = yield* history("type=search&from=0&size=10")
          expect(searches.status).toBe(200)
          expect(searches.body.total).toBe(3)
          expect(searches.body.items.map((event) => event.name)).toEqual(["gamma", "beta", "alpha"])
          expect(searches.body.items[0]).toEqual({
            id: expect.any(Number),
            user: { id: "local", name: null, email: null, provider: "local", details: {} },
            creationDate: legacyDate,
            modificationDate: legacyDate,
            type: "SEARCH",
            name: "gamma",
            uri: "?q=gamma"
          })
          expect(yield* names("type=DOCUMENT")).toEqual(["doc.txt"])

          // Visiting alpha again keeps its id, name and creation date and moves it first.
          const alpha = searches.body.items.find((event) => event.name === "alpha")!
          yield* record({ type: "DOCUMENT", projectIds: [], name: "renamed", uri: "?q=alpha" })
          const refreshed = (yield* history("type=search")).body.items
          expect(refreshed.map((event) => event.name)).toEqual(["alpha", "gamma", "beta"])
          expect(refreshed[0]).toMatchObject({ id: alpha.id, name: "alpha", creationDate: alpha.creationDate, type: "SEARCH" })
          expect(refreshed[0]!.modificationDate > alpha.modificationDate).toBe(true)

          // A long search uri is stored and refreshed like a short one.
          const longUri = `?q=${randomBytes(15_000).toString("base64url")}`
          expect((yield* record({ type: "SEARCH", projectIds: [], name: "long", uri: longUri })).status).toBe(200)
          expect((yield* record({ type: "SEARCH", projectIds: [], name: "long", uri: longUri })).status).toBe(200)
          const long = (yield* history("type=search")).body.items.filter((event) => event.name === "long")
          expect(long.map((event) => event.uri)).toEqual([longUri])
          expect((yield* request(`/api/users/me/history/event?id=${long[0]!.id}`, { method: "DELETE" })).status).toBe(204)

          expect(yield* names("type=search&sort=name&desc=false")).toEqual(["alpha", "beta", "gamma"])
          expect(yield* names("type=search&sort=modification_date&desc=FALSE")).toEqual(["beta", "gamma", "alpha"])
          expect(yield* names("type=search&sort=creationDate")).toEqual(["gamma", "beta", "alpha"])
          expect(yield* names("type=search&sort=creation_date&desc=false")).toEqual(["alpha", "beta", "gamma"])
          const page = yield* history("type=search&from=1&size=1")
          expect(page.body).toMatchObject({ items: [{ name: "gamma" }], total: 3 })
          const linked = yield* history("type=search&projects=local-datashare,other")
          expect(linked.body.items.map((event) => event.name)).toEqual(["alpha", "gamma"])
          expect(linked.body.total).toBe(2)
          expect((yield* history("type=search&projects=other")).body).toEqual({ items: [], total: 0 })
        })
      )

      it.effect("DELETE removes one event or all events of a type, answering 204 also when there is nothing", () =>
        Effect.gen(function* () {
          for (const preflight of [
            ["", "OPTIONS, GET, PUT, DELETE"],
            ["/event", "OPTIONS, DELETE"]
          ] as const) {
            const response = yield* request(`/api/users/me/history${preflight[0]}`, { method: "OPTIONS" })
            expect(response.headers.get("access-control-allow-methods")).toBe(preflight[1])
          }
          yield* record({ type: "DOCUMENT", projectIds: ["local-datashare"], name: "one", uri: "/one" })
          yield* record({ type: "DOCUMENT", projectIds: [], name: "two", uri: "/two" })
          const [latest] = (yield* history("type=document")).body.items
          expect((yield* request(`/api/users/me/history/event?id=${latest!.id}`, { method: "DELETE" })).status).toBe(204)
          expect((yield* request(`/api/users/me/history/event?id=${latest!.id}`, { method: "DELETE" })).status).toBe(204)
          expect(yield* names("type=document")).not.toContain(latest!.name)
          expect((yield* request("/api/users/me/history?type=document", { method: "DELETE" })).status).toBe(204)
          expect((yield* history("type=document")).body).toEqual({ items: [], total: 0 })
          expect((yield* request("/api/users/me/history?type=document", { method: "DELETE" })).status).toBe(204)
          expect(
            yield* query(
              (sql) =>
                sql`SELECT h.id FROM user_history_projects p LEFT JOIN user_history h ON h.id = p.history_id WHERE h.type = 'DOCUMENT'`
            )
          ).toEqual([])
        })
      )

      it.effect("bad requests answer 400: unknown type or sort, bad from/size/id, malformed events, too many project ids", () =>
        Effect.gen(function* () {
          for (const parameters of [
            "",
            "type=folder",
            "type=search&sort=bogus",
            "type=search&from=-1",
            "type=search&size=abc",
            "type=search&size=1.5"
          ]) {
            const response = yield* history(parameters)
            expect({ parameters, status: response.status }).toEqual({ parameters, status: 400 })
          }
          const events: ReadonlyArray<unknown> = [
            { type: "search", projectIds: [], name: "n", uri: "/u" },
            { type: "SEARCH", name: "n", uri: "/u" },
            { type: "SEARCH", projectIds: "local-datashare", name: "n", uri: "/u" },
            { type: "SEARCH", projectIds: [], name: "n" },
            { type: "SEARCH", projectIds: [], name: "n", uri: "" },
            { type: "SEARCH", projectIds: [], name: 4, uri: "/u" },
            { type: "SEARCH", projectIds: Array.from({ length: 1001 }, () => "local-datashare"), uri: "/u" },
            "not json"
          ]
          for (const event of events) {
            const response = yield* send("PUT", "/api/users/me/history", event)
            expect(response.status).toBe(400)
            expect(yield* bodyJson(response)).toEqual({ error: expect.any(String) })
          }
          expect((yield* send("PUT", "/api/users/me/history", { type: "SEARCH", projectIds: ["not-mine"], uri: "/u" })).status).toBe(403)
          expect(yield* query((sql) => sql`SELECT id FROM user_history WHERE uri = '/u'`)).toEqual([])
          expect((yield* request("/api/users/me/history", { method: "DELETE", headers: json })).status).toBe(400)
          expect((yield* request("/api/users/me/history?type=nope", { method: "DELETE", headers: json })).status).toBe(400)
          expect((yield* request("/api/users/me/history/event?id=abc", { method: "DELETE", headers: json })).status).toBe(400)
          expect((yield* request("/api/users/me/history/event", { method: "DELETE", headers: json })).status).toBe(400)
        })
      )
    })
  })
}

describe("users and history in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("each user sees their own details, projects and history; events may only link granted projects", () =>
      Effect.gen(function* () {
        yield* addUser("alice", "pw", { projects: ["granted"] })
        yield* addUser("bob", "pw", { projects: ["granted", "bobs"] })
        const alice = yield* signIn("alice", "pw")
        const bob = yield* signIn("bob", "pw")
        const me = (yield* bodyJson(yield* request("/api/users/me", { headers: alice }))) as Record<string, unknown>
        expect(me).toMatchObject({
          uid: "alice",
          groups_by_applications: { datashare: ["granted"] },
          projects: [expect.objectContaining({ name: "granted" })]
        })
        expect(me).not.toHaveProperty("password")

        expect((yield* record({ type: "SEARCH", projectIds: ["granted"], name: "a", uri: "/shared" }, alice)).status).toBe(200)
        expect((yield* record({ type: "SEARCH", projectIds: ["bobs"], name: "b", uri: "/shared" }, bob)).status).toBe(200)
        expect((yield* record({ type: "SEARCH", projectIds: ["bobs"], name: "x", uri: "/x" }, alice)).status).toBe(403)
        expect(yield* names("type=search", alice)).toEqual(["a"])
        const bobs = (yield* history("type=search", bob)).body.items
        expect(bobs.map((event) => event.name)).toEqual(["b"])
        expect((yield* request(`/api/users/me/history/event?id=${bobs[0]!.id}`, { method: "DELETE", headers: alice })).status).toBe(204)
        expect(yield* names("type=search", bob)).toEqual(["b"])
      })
    )
  })
})
