import { createHash } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll } from "@effect/vitest"
import type { ExtractedDocument, ExtractOptions } from "../../src/extract/Document.ts"
import { type CorpusFile, generateCorpus } from "../fixtures/corpus.ts"

export const project = "local-datashare"
export const options: ExtractOptions = { project, ocr: false, maxContentLength: -1 }

/** Hex SHA-384 of the parts concatenated, computed here independently of src/extract/DocumentId.ts. */
export const sha384 = (...parts: ReadonlyArray<string | Uint8Array>) => {
  const hash = createHash("sha384")
  for (const part of parts) hash.update(typeof part === "string" ? Buffer.from(part, "utf8") : part)
  return hash.digest("hex")
}

/** Generates the corpus once for a test file, in a directory removed afterwards. */
export const useCorpus = () => {
  const state: { dir: string; paths: Record<CorpusFile, string> | undefined } = { dir: "", paths: undefined }
  beforeAll(async () => {
    state.dir = await mkdtemp(path.join(os.tmpdir(), "quarry-corpus-"))
    state.paths = await generateCorpus(state.dir)
  })
  afterAll(() => rm(state.dir, { recursive: true, force: true }))
  return {
    path: (file: CorpusFile) => state.paths?.[file] ?? "",
    dir: () => state.dir
  }
}

export const flatten = (document: ExtractedDocument): ReadonlyArray<ExtractedDocument> => [document, ...document.children.flatMap(flatten)]

export const byName = (document: ExtractedDocument, name: string) =>
  flatten(document).find((doc) => doc.metadata["tika_metadata_resourcename"] === name)
