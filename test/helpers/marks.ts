import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { DocumentIndex, type IndexedDocument } from "../../src/search/DocumentIndex.ts"
import { request, TestServer } from "./server.ts"
import { sessionCookieOf } from "./users.ts"

/** A plain text document as the index stores it, without going through extraction. */
export const textDocument = (id: string, path: string, content = `The text of ${path}.`): IndexedDocument => ({
  id,
  path,
  dirname: path.slice(0, path.lastIndexOf("/")) || "/",
  content,
  contentLength: content.length,
  contentTextLength: content.length,
  contentType: "text/plain",
  contentEncoding: "UTF-8",
  language: "ENGLISH",
  metadata: {},
  extractionDate: "2024-01-02T03:04:05.678Z",
  extractionLevel: 0,
  parentDocument: null,
  rootDocument: id,
  tags: [],
  nerTags: [],
  status: "INDEXED"
})

/** Runs an effect against the test server's own services. */
export const onServer = <A, E>(effect: Effect.Effect<A, E, DocumentIndex | SqlClient.SqlClient>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(effect, server.context)).pipe(Effect.orDie)

/** Indexes documents `<prefix>0…` in a project; returns their ids. */
export const indexDocuments = (project: string, count: number, prefix = project) =>
  Effect.gen(function* () {
    const documents = Array.from({ length: count }, (_, n) => textDocument(`${prefix}-doc-${n}`, `/data/${project}/file-${n}.txt`))
    yield* onServer(Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)))
    return documents.map((document) => document.id)
  })

/** The tags column of a document, as the index holds it. */
export const indexedTags = (project: string, id: string) =>
  onServer(Effect.flatMap(DocumentIndex, (index) => index.get(project, id))).pipe(
    Effect.map((document) => (document._tag === "Some" ? [...document.value.tags] : undefined))
  )

/** Runs one SQL statement on the test server's database. */
export const query = <A extends object>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  onServer(Effect.flatMap(SqlClient.SqlClient, statement))

/** A JSON request with a body (front ends send JSON whatever the method). */
export const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  request(path, {
    method,
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", accept: "application/json", ...headers }
  })

/** Signs in once and returns the session cookie header for later requests (SERVER mode). */
export const signIn = (login: string, password: string) =>
  Effect.map(sessionCookieOf(login, password), (cookie) => ({ cookie, accept: "application/json" }))
