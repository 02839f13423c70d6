/** Shared by the PostgresDocumentIndex tests: the test server's own services, and documents extracted as the index job does. */
import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Extractor } from "../../src/extract/Extractor.ts"
import { DocumentIndex, type IndexedDocument } from "../../src/search/DocumentIndex.ts"
import { indexedDocuments } from "../../src/search/indexedDocuments.ts"
import { TestServer } from "../helpers/server.ts"

/** Runs an effect with the test server's own services (its DocumentIndex and database). */
export const withServer = <A, E>(use: (index: typeof DocumentIndex.Service, sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.provide(
      Effect.flatMap(Effect.all([DocumentIndex, SqlClient.SqlClient]), ([index, sql]) => use(index, sql)),
      server.context
    )
  )

/** Extracts a file with the real Extractor, as the index job does, and lists its documents. */
export const extract = (project: string, file: string) =>
  Effect.flatMap(Extractor, (extractor) => extractor.extract(file, { project, ocr: false, maxContentLength: -1 })).pipe(
    Effect.map(indexedDocuments),
    Effect.provide(Extractor.Default),
    Effect.orDie
  )

export const inWorkDir = (...parts: ReadonlyArray<string>) => Effect.map(TestServer, (server) => path.join(server.workDir, ...parts))

/** The document of a one-line text file written in the work folder: a template for generated documents. */
export const templateDocument = (project: string, name: string, text: string) =>
  Effect.gen(function* () {
    const file = yield* inWorkDir(name)
    yield* Effect.promise(() => writeFile(file, text))
    const [template] = yield* extract(project, file)
    return template!
  })

/** The template as the `n`-th top-level document: an id of its own, which is its routing too. */
export const numberedCopy = (template: IndexedDocument, n: number): IndexedDocument => {
  const id = n.toString(16).padStart(96, "0")
  return { ...template, id, rootDocument: id }
}
