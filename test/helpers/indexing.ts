import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import { Extractor } from "../../src/extract/Extractor.ts"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { indexedDocuments } from "../../src/search/indexedDocuments.ts"
import { TestServer } from "./server.ts"

/** Extracts files of the test server's work folder and indexes them in `project` through the server's own index. */
export const indexFiles = (project: string, files: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const documents = yield* Effect.forEach(files, (file) =>
      Effect.flatMap(Extractor, (extractor) => extractor.extract(file, { project, ocr: false, maxContentLength: -1 })).pipe(
        Effect.map(indexedDocuments),
        Effect.provide(Extractor.Default),
        Effect.orDie
      )
    )
    yield* Effect.provide(
      Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents.flat())),
      server.context
    )
    return documents.flat()
  })

/** Writes a text file in the test server's work folder; answers its path. */
export const writeText = (name: string, text: string) =>
  Effect.flatMap(TestServer, (server) => {
    const file = path.join(server.workDir, name)
    return Effect.as(
      Effect.promise(() => writeFile(file, text)),
      file
    )
  })

/** Three documents of a project, indexed: two about tankers, one about a bank (the batch-search tests' corpus). */
export const shipsAndBank = (project: string) =>
  Effect.gen(function* () {
    const files = [
      yield* writeText("ships.txt", "The tanker Morning Star left the harbour with its cargo."),
      yield* writeText("more-ships.txt", "A second tanker, registered offshore, carried the same cargo."),
      yield* writeText("banks.txt", 'The bank "Trust One" wired the payment to an offshore account.')
    ]
    return yield* indexFiles(project, files)
  })
