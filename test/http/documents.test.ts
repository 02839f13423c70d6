import { readFile, rm, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it as plain, layer } from "@effect/vitest"
import { Effect } from "effect"
import { maskAllows, occurrences } from "../../src/domain/document/Content.ts"
import { attachmentBytes, generateCorpus, phrases } from "../fixtures/corpus.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { indexFiles, writeText } from "../helpers/indexing.ts"
import { bodyJson, bodyText, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"

const local = "local-datashare"

const runSql = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), server.context)).pipe(Effect.orDie)

const setMask = (project: string, mask: string | null) =>
  runSql(
    (sql) => sql`INSERT INTO projects (id, allow_from_mask) VALUES (${project}, ${mask})
    ON CONFLICT (id) DO UPDATE SET allow_from_mask = EXCLUDED.allow_from_mask`
  )

describe("document rules", () => {
  plain("matches masks octet by octet; null, blank and * allow all; IPv6-mapped IPv4 addresses count as IPv4", () => {
    expect(maskAllows(null, "10.1.2.3")).toBe(true)
    expect(maskAllows("*", "::1")).toBe(true)
    expect(maskAllows(" ", "127.0.0.1")).toBe(true)
    expect(maskAllows("10.*.*.*", "10.1.2.3")).toBe(true)
    expect(maskAllows("10.*.*.*", "::ffff:10.200.0.1")).toBe(true)
    expect(maskAllows("10.*.*.*", "127.0.0.1")).toBe(false)
    expect(maskAllows("10.*", "10.1.2.3")).toBe(false)
    expect(maskAllows("127.0.0.1", "127.0.0.10")).toBe(false)
    expect(maskAllows("1.2.3.*", "1.2.3.1234")).toBe(false)
  })

  plain("finds non-overlapping case-insensitive occurrences at the right offsets even where lower-casing changes lengths", () => {
    expect(occurrences("aaaa", "aa")).toEqual([0, 2])
    expect(occurrences("İstanbul ISTANBUL istanbul", "istanbul")).toEqual([9, 18])
    expect(occurrences("a.b a+b", "a+b")).toEqual([4])
  })
})

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const skipped = skip ? ` (skipped: ${postgresSkipReason})` : ""

  describe.skipIf(skip)(`documents endpoints in LOCAL mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("src answers the file's bytes as an attachment of its type, and an embedded document's own bytes", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const corpus = yield* Effect.promise(() => generateCorpus(path.join(server.workDir, "corpus")))
          const documents = yield* indexFiles(local, [corpus.pdf, corpus.eml])
          const pdf = documents.find((document) => document.path === corpus.pdf)!
          const response = yield* request(`/api/${local}/documents/src/${pdf.id}`)
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("application/pdf")
          expect(response.headers.get("content-disposition")).toBe(`attachment;filename="report.pdf"`)
          const bytes = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
          expect(bytes.equals(yield* Effect.promise(() => readFile(corpus.pdf)))).toBe(true)
          const inline = yield* request(`/api/${local}/documents/src/${pdf.id}?inline=true`)
          expect(inline.status).toBe(200)
          expect(inline.headers.get("content-disposition")).toBeNull()

          const attachment = documents.find((document) => document.path === corpus.eml && document.extractionLevel === 1)!
          const embedded = yield* request(`/api/${local}/documents/src/${attachment.id}?routing=${attachment.rootDocument}`)
          expect(embedded.status).toBe(200)
          expect(embedded.headers.get("content-type")).toBe("text/plain")
          expect(embedded.headers.get("content-disposition")).toBe(`attachment;filename="${attachment.id.slice(0, 10)}.txt"`)
          expect(Buffer.from(yield* Effect.promise(() => embedded.arrayBuffer())).equals(attachmentBytes)).toBe(true)
          expect((yield* request(`/api/${local}/documents/src/${attachment.id}?routing=${attachment.id}`)).status).toBe(404)
        })
      )

      it.effect("src takes a member of a nested archive out of its root file, and answers 404 once the root no longer holds it", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const corpus = yield* Effect.promise(() => generateCorpus(path.join(server.workDir, "nested")))
          const documents = yield* indexFiles(local, [corpus.zip])
          const deep = documents.find((document) => document.extractionLevel === 2)!
          const nestedZip = documents.find((document) => document.id === deep.parentDocument)!
          const member = yield* request(`/api/${local}/documents/src/${deep.id}?routing=${deep.rootDocument}`)
          expect(member.status).toBe(200)
          expect(yield* bodyText(member)).toBe(`${phrases.nestedMember}\n`)
          const archive = yield* request(`/api/${local}/documents/src/${nestedZip.id}?routing=${deep.rootDocument}`)
          expect(archive.status).toBe(200)
          expect(archive.headers.get("content-type")).toBe("application/zip")
          expect(archive.headers.get("content-disposition")).toBe(`attachment;filename="${nestedZip.id.slice(0, 10)}.zip"`)
          expect(
            Buffer.from(yield* Effect.promise(() => archive.arrayBuffer()))
              .subarray(0, 2)
              .toString("latin1")
          ).toBe("PK")

          yield* Effect.promise(() => writeFile(corpus.zip, "no longer an archive"))
          const gone = yield* request(`/api/${local}/documents/src/${deep.id}?routing=${deep.rootDocument}`, {
            headers: { accept: "application/json" }
          })
          expect(gone.status).toBe(404)
          expect(yield* bodyJson(gone)).toEqual({ error: expect.stringContaining("no longer embedded") })
        })
      )

      it.effect("src answers 404 for an unknown id and for a file gone from disk", () =>
        Effect.gen(function* () {
          const unknown = yield* request(`/api/${local}/documents/src/${"0".repeat(96)}`, { headers: { accept: "application/json" } })
          expect(unknown.status).toBe(404)
          expect(yield* bodyJson(unknown)).toEqual({ error: expect.any(String) })
          const file = yield* writeText("soon-gone.txt", "This file will be removed.")
          const [document] = yield* indexFiles(local, [file])
          yield* Effect.promise(() => rm(file))
          expect((yield* request(`/api/${local}/documents/src/${document!.id}`)).status).toBe(404)
        })
      )

      it.effect("src follows the project's allow_from_mask: 10.*.*.* refuses 127.0.0.1, * and null allow", () =>
        Effect.gen(function* () {
          const project = "masked"
          const file = yield* writeText("masked.txt", "A document of a masked project.")
          const [document] = yield* indexFiles(project, [file])
          const src = () => request(`/api/${project}/documents/src/${document!.id}`)
          yield* setMask(project, "10.*.*.*")
          const refused = yield* src()
          expect(refused.status).toBe(403)
          expect(yield* bodyJson(refused)).toEqual({ error: "Download not allowed" })
          // The mask guards downloads only: the text stays readable.
          expect((yield* request(`/api/${project}/documents/content/${document!.id}`)).status).toBe(200)
          for (const mask of ["127.0.0.*", "*", null]) {
            yield* setMask(project, mask)
            const allowed = yield* src()
            expect(allowed.status).toBe(200)
            expect(yield* bodyText(allowed)).toBe("A document of a masked project.")
          }
        })
      )

      it.effect("content answers character slices with both key sets, and the whole text without bounds", () =>
        Effect.gen(function* () {
          const text = "Café in Zürich — naïve 🙂 end"
          const [document] = yield* indexFiles(local, [yield* writeText("unicode.txt", text)])
          const url = `/api/${local}/documents/content/${document!.id}`
          const whole = yield* request(url)
          expect(whole.status).toBe(200)
          expect(yield* bodyJson(whole)).toEqual({
            content: text,
            maxOffset: text.length,
            start: 0,
            size: text.length,
            offset: 0,
            limit: text.length,
            targetLanguage: ""
          })
          // Characters, not bytes: "é", "ü" and "—" are one each though two or three bytes in UTF-8.
          const slice = yield* bodyJson(yield* request(`${url}?offset=8&limit=6&routing=${document!.id}`))
          expect(slice).toEqual({ content: "Zürich", maxOffset: text.length, start: 8, size: 6, offset: 8, limit: 6, targetLanguage: "" })
          const last = yield* bodyJson(yield* request(`${url}?offset=${text.length - 3}&limit=3`))
          expect(last).toMatchObject({ content: "end" })
        })
      )

      it.effect("content answers 400 for bounds outside the text, 404 for unknown documents and translations", () =>
        Effect.gen(function* () {
          const [document] = yield* indexFiles(local, [yield* writeText("bounds.txt", "0123456789")])
          const url = `/api/${local}/documents/content/${document!.id}`
          const beyond = yield* request(`${url}?offset=5&limit=6`)
          expect(beyond.status).toBe(400)
          expect(yield* bodyJson(beyond)).toEqual({ error: "Range [5-11] is out of document range ([0-10])" })
          const negative = yield* request(`${url}?offset=-1&limit=2`)
          expect(negative.status).toBe(400)
          expect(yield* bodyJson(negative)).toEqual({ error: "offset or limit should not be negative (offset=-1, limit=2)" })
          expect((yield* request(`${url}?offset=abc&limit=2`)).status).toBe(400)
          expect((yield* request(`${url}?offset=2`)).status).toBe(400)
          expect(yield* bodyJson(yield* request(`${url}?offset=10&limit=0`))).toMatchObject({ content: "", offset: 10, limit: 0 })
          expect((yield* request(`/api/${local}/documents/content/${"1".repeat(96)}`)).status).toBe(404)
          const translated = yield* request(`${url}?targetLanguage=FRENCH`)
          expect(translated.status).toBe(404)
          expect(yield* bodyJson(translated)).toEqual({ error: "Translated content in FRENCH not found" })
        })
      )

      it.effect("searchContent answers the offsets of every case-insensitive occurrence", () =>
        Effect.gen(function* () {
          const text = `${phrases.utf8} OCEAN views. ocean.`
          const [document] = yield* indexFiles(local, [yield* writeText("search.txt", text)])
          const url = `/api/${local}/documents/searchContent/${document!.id}`
          const found = yield* request(`${url}?query=Ocean`)
          expect(found.status).toBe(200)
          const expected = [text.indexOf("Ocean"), text.indexOf("OCEAN"), text.lastIndexOf("ocean")]
          expect(yield* bodyJson(found)).toEqual({ offsets: expected, count: 3, query: "Ocean", targetLanguage: null })
          expect(yield* bodyJson(yield* request(`${url}?query=absent&targetLanguage=original`))).toEqual({
            offsets: [],
            count: 0,
            query: "absent",
            targetLanguage: "original"
          })
          expect((yield* request(url)).status).toBe(400)
          expect((yield* request(`/api/${local}/documents/searchContent/${"2".repeat(96)}?query=x`)).status).toBe(404)
        })
      )

      it.effect("the documents routes are described in /api/openapi", () =>
        Effect.gen(function* () {
          const spec = (yield* bodyJson(yield* request("/api/openapi"))) as { paths: Record<string, unknown> }
          const paths = Object.keys(spec.paths).filter((key) => /\/documents\/(src|content|searchContent)\//.test(key))
          expect(paths).toHaveLength(3)
        })
      )
    })
  })

  describe.skipIf(skip)(`documents endpoints in SERVER mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("answer 403 for a project the user is not granted, 200 for one granted", () =>
        Effect.gen(function* () {
          yield* addUser("erin", "password", { projects: ["granted"] })
          const auth = { headers: { authorization: basic("erin", "password"), accept: "application/json" } }
          const file = yield* writeText("secret.txt", "Restricted words.")
          const [secret] = yield* indexFiles("secret", [file])
          const [granted] = yield* indexFiles("granted", [file])
          for (const kind of ["src", "content", "searchContent"]) {
            const refused = yield* request(`/api/secret/documents/${kind}/${secret!.id}?query=words`, auth)
            expect(refused.status).toBe(403)
            expect(yield* bodyJson(refused)).toEqual({ error: expect.any(String) })
            expect((yield* request(`/api/granted/documents/${kind}/${granted!.id}?query=words`, auth)).status).toBe(200)
          }
        })
      )
    })
  })
}
