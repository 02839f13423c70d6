import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { indexDocuments, onServer, query, send, signIn } from "../helpers/marks.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"

const legacyDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)

const setMask = (project: string, mask: string | null) =>
  query((sql) => sql`UPDATE projects SET allow_from_mask = ${mask} WHERE id = ${project} RETURNING id`)

const createProject = (name: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  Effect.flatMap(TestServer, (server) =>
    send("POST", "/api/project", { name, sourcePath: path.join(server.workDir, name), ...extra }, headers)
  )

/** How many rows each table holds for a project. */
const rowsOf = (project: string) =>
  query<{ name: string; count: number }>(
    (sql) => sql`
      SELECT 'stars' AS name, count(*)::int AS count FROM document_stars WHERE project = ${project}
      UNION ALL SELECT 'tags', count(*)::int FROM document_tags WHERE project = ${project}
      UNION ALL SELECT 'recommendations', count(*)::int FROM document_recommendations WHERE project = ${project}
      UNION ALL SELECT 'notes', count(*)::int FROM notes WHERE project = ${project}
      UNION ALL SELECT 'history', count(*)::int FROM user_history_projects WHERE project = ${project}
      UNION ALL SELECT 'documents', count(*)::int FROM documents WHERE project = ${project}
      UNION ALL SELECT 'duplicates', count(*)::int FROM duplicates WHERE project = ${project}
      UNION ALL SELECT 'indices', count(*)::int FROM document_indices WHERE project = ${project}
      UNION ALL SELECT 'projects', count(*)::int FROM projects WHERE id = ${project}
      UNION ALL SELECT 'batchSearches', count(*)::int FROM batch_searches b JOIN batch_search_projects p ON p.search_uuid = b.uuid WHERE p.project_id = ${project}
      UNION ALL SELECT 'batchResults', count(*)::int FROM batch_search_results WHERE prj_id = ${project}`
  ).pipe(Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.name, row.count]))))

/** A project with one of every row that belongs to it. */
const populate = (project: string) =>
  Effect.gen(function* () {
    yield* createProject(project)
    const [a, b] = yield* indexDocuments(project, 2)
    yield* query(
      (sql) => sql`INSERT INTO duplicates (project, id, path, document_id) VALUES (${project}, 'dup', '/data/copy.txt', ${a!}) RETURNING id`
    )
    yield* send("POST", `/api/${project}/documents/batchUpdate/star`, [a])
    yield* send("POST", `/api/${project}/documents/batchUpdate/tag`, { docIds: [a, b], tags: ["x"] })
    yield* send("POST", `/api/${project}/documents/batchUpdate/recommend`, [b])
    yield* send("PUT", `/api/${project}/notes/data/${project}`, { note: "careful" })
    yield* send("PUT", "/api/users/me/history", { type: "DOCUMENT", projectIds: [project], name: "doc", uri: `/ds/${project}/${a}` })
    // A batch search of the project, with one result (the run itself is tested with batch searches).
    const uuid = `00000000-0000-4000-8000-${Buffer.from(project).toString("hex").padStart(12, "0").slice(-12)}`
    yield* query(
      (sql) => sql`INSERT INTO batch_searches (uuid, name, user_id, state) VALUES (${uuid}, 'names', 'local', 'SUCCESS') RETURNING uuid`
    )
    yield* query(
      (sql) => sql`INSERT INTO batch_search_projects (search_uuid, project_id) VALUES (${uuid}, ${project}) RETURNING project_id`
    )
    yield* query(
      (sql) => sql`INSERT INTO batch_search_results (search_uuid, query_number, query, doc_nb, doc_id, root_id, doc_path, prj_id)
      VALUES (${uuid}, 0, 'names', 0, ${a!}, ${a!}, '/data/a.txt', ${project}) RETURNING doc_id`
    )
  })

const everyRow = {
  stars: 1,
  tags: 2,
  recommendations: 1,
  notes: 1,
  history: 1,
  documents: 2,
  duplicates: 1,
  indices: 1,
  projects: 1,
  batchSearches: 1,
  batchResults: 1
}
const noRow = {
  stars: 0,
  tags: 0,
  recommendations: 0,
  notes: 0,
  history: 0,
  documents: 0,
  duplicates: 0,
  indices: 0,
  projects: 0,
  batchSearches: 0,
  batchResults: 0
}

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const skipped = skip ? ` (skipped: ${postgresSkipReason})` : ""

  describe.skipIf(skip)(`projects in LOCAL mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("creates a project and its index, reads and lists it, and refuses a second creation with 409", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          expect(yield* bodyJson(yield* request("/api/project/local-datashare", { headers: { accept: "application/json" } }))).toEqual({
            error: "Project not found"
          })
          const created = yield* createProject("leaks", {
            label: "Leaks",
            publisherName: "ICIJ",
            sourceUrl: "https://icij.org",
            allowFromMask: "10.*.*.*"
          })
          expect(created.status).toBe(201)
          const project = yield* bodyJson(created)
          expect(project).toEqual({
            name: "leaks",
            sourcePath: pathToFileURL(path.join(server.workDir, "leaks")).href,
            label: "Leaks",
            description: null,
            publisherName: "ICIJ",
            maintainerName: null,
            logoUrl: null,
            sourceUrl: "https://icij.org",
            creationDate: legacyDate,
            updateDate: legacyDate
          })
          expect(yield* onServer(Effect.flatMap(DocumentIndex, (index) => index.indexExists("leaks")))).toBe(true)
          // The mask is not settable through JSON: a new project allows every address.
          expect(yield* query((sql) => sql`SELECT allow_from_mask FROM projects WHERE id = 'leaks'`)).toEqual([{ allow_from_mask: null }])
          expect(yield* bodyJson(yield* request("/api/project/leaks"))).toEqual(project)
          expect(yield* bodyJson(yield* request("/api/project/"))).toContainEqual(project)
          const again = yield* createProject("leaks")
          expect(again.status).toBe(409)
          expect(yield* bodyJson(again)).toEqual({ error: "Project already exists." })
        })
      )

      it.effect("refuses invalid project bodies with 400", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const inside = path.join(server.workDir, "x")
          const cases: ReadonlyArray<readonly [unknown, string]> = [
            [{}, "`name` field is required."],
            [{ name: "" }, "`name` field is required."],
            [JSON.stringify("bare-name"), `\`sourcePath\` is required and must not be outside ${server.workDir}.`],
            [{ name: "x" }, `\`sourcePath\` is required and must not be outside ${server.workDir}.`],
            [{ name: "x", sourcePath: "/etc" }, `\`sourcePath\` is required and must not be outside ${server.workDir}.`],
            [
              { name: "x", sourcePath: path.join(server.workDir, "..", "escape") },
              `\`sourcePath\` is required and must not be outside ${server.workDir}.`
            ],
            [{ name: "a/b", sourcePath: inside }, "`name` is 1 to 255 characters, without '/', ',' or spaces."],
            [{ name: "a,b", sourcePath: inside }, "`name` is 1 to 255 characters, without '/', ',' or spaces."],
            [{ name: "x", sourcePath: inside, label: "l".repeat(256) }, "`label` is at most 255 characters."]
          ]
          for (const [body, error] of cases) {
            const response = yield* send("POST", "/api/project", body)
            expect({ body, status: response.status, error: yield* bodyJson(response) }).toEqual({ body, status: 400, error: { error } })
          }
          for (const body of ["{not json", JSON.stringify({ name: 5, sourcePath: inside }), JSON.stringify([])]) {
            expect((yield* send("POST", "/api/project", body)).status).toBe(400)
          }
          expect(yield* bodyJson(yield* createProject("file-uri", { sourcePath: pathToFileURL(inside).href }))).toMatchObject({
            sourcePath: pathToFileURL(inside).href
          })
          expect(yield* query((sql) => sql`SELECT id FROM projects WHERE id IN ('x', 'a/b', 'a,b', 'bare-name')`)).toEqual([])
        })
      )

      it.effect("PUT replaces the editable fields and keeps the mask; 404 for an unknown id or a different name; 400 for wrong types", () =>
        Effect.gen(function* () {
          yield* createProject("editable", { label: "Old", description: "old" })
          yield* setMask("editable", "127.0.0.*")
          const updated = yield* send("PUT", "/api/project/editable", { name: "editable", label: "New", maintainerName: "me" })
          expect(updated.status).toBe(200)
          expect(yield* bodyJson(updated)).toMatchObject({ name: "editable", label: "New", description: null, maintainerName: "me" })
          expect(yield* query((sql) => sql`SELECT allow_from_mask FROM projects WHERE id = 'editable'`)).toEqual([
            { allow_from_mask: "127.0.0.*" }
          ])
          expect((yield* send("PUT", "/api/project/editable", { name: "other", label: "x" })).status).toBe(404)
          expect((yield* send("PUT", "/api/project/unknown", { name: "unknown" })).status).toBe(404)
          expect((yield* send("PUT", "/api/project/editable", { name: "editable", label: 3 })).status).toBe(400)
          expect((yield* send("PUT", "/api/project/editable", { description: "d".repeat(4097) })).status).toBe(400)
        })
      )

      it.effect("isDownloadAllowed follows the mask: none or * allow all, one * per octet, 403 Download not allowed", () =>
        Effect.gen(function* () {
          yield* createProject("masked")
          const check = () => request("/api/project/isDownloadAllowed/masked", { headers: { accept: "application/json" } })
          expect((yield* check()).status).toBe(200)
          yield* setMask("masked", "10.*.*.*")
          const refused = yield* check()
          expect(refused.status).toBe(403)
          expect(yield* bodyJson(refused)).toEqual({ error: "Download not allowed" })
          for (const mask of ["127.0.*.*", "*", "127.0.0.1"]) {
            yield* setMask("masked", mask)
            expect({ mask, status: (yield* check()).status }).toEqual({ mask, status: 200 })
          }
          expect((yield* request("/api/project/isDownloadAllowed/never-created")).status).toBe(200)
        })
      )

      it.effect("DELETE removes every row of the project and its index in one go, and nothing of other projects", () =>
        Effect.gen(function* () {
          yield* populate("doomed")
          yield* populate("kept")
          expect(yield* rowsOf("doomed")).toEqual(everyRow)
          const preflight = yield* request("/api/project/doomed", { method: "OPTIONS" })
          expect(preflight.headers.get("access-control-allow-methods")).toBe("OPTIONS, DELETE")
          const deleted = yield* request("/api/project/doomed", { method: "DELETE" })
          expect(deleted.status).toBe(204)
          expect(yield* rowsOf("doomed")).toEqual(noRow)
          expect(yield* rowsOf("kept")).toEqual(everyRow)
          expect((yield* request("/api/project/doomed")).status).toBe(404)
          expect((yield* request("/api/project/never-created", { method: "DELETE" })).status).toBe(401)
        })
      )

      it.effect("DELETE leaves everything in place when a step fails", () =>
        Effect.gen(function* () {
          yield* populate("stuck")
          yield* query(
            (sql) => sql`CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`
          )
          yield* query(
            (sql) =>
              sql`CREATE TRIGGER refuse_stuck BEFORE DELETE ON document_indices FOR EACH ROW WHEN (OLD.project = 'stuck') EXECUTE FUNCTION refuse_delete()`
          )
          const failed = yield* request("/api/project/stuck", { method: "DELETE", headers: { accept: "application/json" } })
          expect(failed.status).toBe(500)
          expect(yield* rowsOf("stuck")).toEqual(everyRow)
          yield* query((sql) => sql`DROP TRIGGER refuse_stuck ON document_indices`)
          expect((yield* request("/api/project/stuck", { method: "DELETE" })).status).toBe(204)
          expect(yield* rowsOf("stuck")).toEqual(noRow)
        })
      )
    })
  })
}

describe("projects in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }))((it) => {
    it.effect("answer 403 for projects outside the caller's, 401 for deleting one, and leave changes to administrators", () =>
      Effect.gen(function* () {
        yield* addUser("root", "pw", { projects: ["granted", "secret"], admin: true })
        yield* addUser("alice", "pw", { projects: ["granted"] })
        const root = yield* signIn("root", "pw")
        const alice = yield* signIn("alice", "pw")
        expect((yield* createProject("granted", {}, root)).status).toBe(201)
        expect((yield* createProject("secret", {}, root)).status).toBe(201)
        yield* setMask("secret", "10.*.*.*")

        expect((yield* request("/api/project/secret", { headers: alice })).status).toBe(403)
        expect((yield* request("/api/project/nowhere", { headers: alice })).status).toBe(403)
        expect((yield* request("/api/project/isDownloadAllowed/secret", { headers: alice })).status).toBe(403)
        expect((yield* request("/api/project/isDownloadAllowed/nowhere", { headers: alice })).status).toBe(403)
        expect((yield* send("PUT", "/api/project/secret", { name: "secret" }, alice)).status).toBe(403)
        expect((yield* request("/api/project/secret", { method: "DELETE", headers: alice })).status).toBe(401)
        expect(
          ((yield* bodyJson(yield* request("/api/project", { headers: alice }))) as ReadonlyArray<{ name: string }>).map((p) => p.name)
        ).toEqual(["granted"])
        expect((yield* request("/api/project/granted", { headers: alice })).status).toBe(200)
        expect((yield* request("/api/project/isDownloadAllowed/granted", { headers: alice })).status).toBe(200)

        // Members read; only administrators create, edit and delete.
        expect((yield* createProject("mine", {}, alice)).status).toBe(403)
        expect((yield* send("PUT", "/api/project/granted", { name: "granted", label: "x" }, alice)).status).toBe(403)
        expect((yield* request("/api/project/granted", { method: "DELETE", headers: alice })).status).toBe(403)
        expect((yield* send("PUT", "/api/project/granted", { name: "granted", label: "Granted" }, root)).status).toBe(200)
        expect((yield* request("/api/project/secret", { method: "DELETE", headers: root })).status).toBe(204)
        expect(yield* rowsOf("secret")).toEqual(noRow)
      })
    )
  })
})

describe("isDownloadAllowed on a dual-stack listener", () => {
  layer(testServerLayer({ database: "pglite", cli: { bind: "::" } }))((it) => {
    it.effect("matches an IPv6-mapped IPv4 client (::ffff:127.0.0.1) against the IPv4 mask", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const port = new URL(server.url).port
        expect((yield* createProject("dual")).status).toBe(201)
        const fromIpv4 = () => Effect.promise(() => fetch(`http://127.0.0.1:${port}/api/project/isDownloadAllowed/dual`))
        yield* setMask("dual", "127.0.0.*")
        expect((yield* fromIpv4()).status).toBe(200)
        yield* setMask("dual", "10.*.*.*")
        expect((yield* fromIpv4()).status).toBe(403)
      })
    )
  })
})
