import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ExtractedDocument } from "../../src/extract/Document.ts"
import { Extractor } from "../../src/extract/Extractor.ts"
import {
  encryptedZip,
  liarZip,
  malformedPdfs,
  nestedZip,
  shortCompressedZip,
  truncatedGzip,
  truncatedTar,
  truncatedZip,
  zipSlip
} from "./files.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-hostile-extract-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** Writes the bytes as a file and extracts it; every hostile file must give a document, never a failure. */
const extract = (name: string, bytes: Uint8Array) =>
  Effect.gen(function* () {
    const file = path.join(dir, name)
    fs.writeFileSync(file, bytes)
    const extractor = yield* Extractor
    return yield* extractor.extract(file, { project: "hostile", ocr: false, maxContentLength: -1 })
  })

const flatten = (document: ExtractedDocument): ReadonlyArray<ExtractedDocument> => [document, ...document.children.flatMap(flatten)]

describe("Hostile files are documents with an extraction error, never a crash", () => {
  it.layer(Extractor.Default)((it) => {
    it.effect("a zip member inflating past its declared size is cut, its error naming the member", () =>
      Effect.gen(function* () {
        const document = yield* extract("liar.zip", liarZip())
        expect(document.extractionError).toMatch(/^small\.txt: too many bytes in the stream\. expected 1000/)
        expect(document.metadata["tika_metadata_x_tika_exception_runtime"]).toBe(document.extractionError)
        expect(document.children).toEqual([])
      })
    )

    it.effect("a zip member declaring fewer compressed bytes than it holds, and a truncated zip", () =>
      Effect.gen(function* () {
        expect((yield* extract("short.zip", shortCompressedZip())).extractionError).toMatch(/^cut\.txt: unexpected end of file/)
        expect((yield* extract("truncated.zip", truncatedZip())).extractionError).toMatch(/^not a readable zip archive/)
      })
    )

    it.effect("an encrypted member is refused from its flag", () =>
      Effect.gen(function* () {
        expect((yield* extract("encrypted.zip", encryptedZip())).extractionError).toBe("encrypted archive: secret.txt needs a password")
      })
    )

    it.effect("a zip whose members climb out of their folder is refused; nothing is written outside", () =>
      Effect.gen(function* () {
        const document = yield* extract("slip.zip", zipSlip())
        expect(document.extractionError).toMatch(/invalid relative path: \.\.\/\.\.\/\.\.\/\.\.\/tmp\/evil\.txt/)
        expect(fs.existsSync("/tmp/evil.txt")).toBe(false)
      })
    )

    it.effect("archives nested deeper than the limit are listed with an error and not opened", () =>
      Effect.gen(function* () {
        const documents = flatten(yield* extract("nested.zip", nestedZip(12)))
        expect(documents.length).toBe(10)
        expect(documents.at(-1)?.extractionError).toBe("not extracted: embedded more than 8 levels deep")
        expect(documents.some((document) => document.content.includes("the bottom of the nest"))).toBe(false)
        const shallow = flatten(yield* extract("shallow.zip", nestedZip(3)))
        expect(shallow.at(-1)?.content).toBe("the bottom of the nest")
      })
    )

    it.effect("a tar and a gzip cut short, and a tar.gz whose member is cut short", () =>
      Effect.gen(function* () {
        expect((yield* extract("short.tar", truncatedTar())).extractionError).toMatch(/^short\.txt: /)
        expect((yield* extract("cut.txt.gz", truncatedGzip())).extractionError).toMatch(/^cut\.txt: unexpected end of file/)
        const tarGz = yield* extract("short.tar.gz", gzipSync(truncatedTar()))
        expect(tarGz.children[0]?.extractionError).toMatch(/^short\.txt: Unexpected end of data/)
      })
    )

    it.effect("malformed PDFs", () =>
      Effect.gen(function* () {
        const pdfs = malformedPdfs()
        expect((yield* extract("garbage.pdf", pdfs.garbage)).extractionError).toMatch(/^corrupt or unreadable PDF/)
        expect((yield* extract("xref.pdf", pdfs.badXref)).extractionError).toMatch(/^corrupt or unreadable PDF/)
      })
    )
  })
})
