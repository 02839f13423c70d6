import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import type { ExtractLimits } from "../../src/extract/Document.ts"
import { Extractor } from "../../src/extract/Extractor.ts"
import { type CorpusFile, phrases } from "../fixtures/corpus.ts"
import { byName, flatten, options, useCorpus } from "./helpers.ts"

const corpus = useCorpus()

const extract = (file: CorpusFile, limits: Partial<ExtractLimits> = {}) =>
  Effect.flatMap(Extractor, (extractor) => extractor.extract(corpus.path(file), { ...options, limits }))

describe("Extractor: broken, hostile and oversized input", () => {
  it.layer(Extractor.Default)((it) => {
    it.effect("a corrupt PDF is a document with an extraction error, not a failure", () =>
      Effect.gen(function* () {
        const document = yield* extract("corruptPdf")
        expect(document.contentType).toBe("application/pdf")
        expect(document.content).toBe("")
        expect(document.extractionError).toMatch(/corrupt or unreadable PDF/)
        expect(document.metadata["tika_metadata_resourcename"]).toBe("corrupt.pdf")
        expect(document.id).toMatch(/^[0-9a-f]{96}$/)
      })
    )

    it.effect("an encrypted zip and a truncated zip say why in the error field", () =>
      Effect.gen(function* () {
        const encrypted = yield* extract("encryptedZip")
        expect(encrypted.extractionError).toMatch(/encrypted archive: secret\.txt/)
        expect(encrypted.children).toEqual([])
        const truncated = yield* extract("truncatedZip")
        expect(truncated.contentType).toBe("application/zip")
        expect(truncated.extractionError).toMatch(/not a readable zip archive/)
      })
    )

    it.effect("a zip bomb is refused from its declared sizes before anything is inflated", () =>
      Effect.gen(function* () {
        const started = Date.now()
        const document = yield* extract("bomb")
        expect(document.extractionError).toMatch(/zeros\.bin: compression ratio over 100:1 .* refused as a zip bomb/)
        expect(document.children).toEqual([])
        expect(Date.now() - started).toBeLessThan(2_000)
      })
    )

    it.effect("a gzip bomb, which declares no size, is cut off while streaming by the ratio limit", () =>
      Effect.gen(function* () {
        const document = yield* extract("gzipBomb")
        expect(document.extractionError).toMatch(/zeros\.bin: compression ratio over 100:1/)
        expect(document.children).toEqual([])
      })
    )

    it.effect("with the ratio allowed, the total uncompressed bytes limit still stops the stream", () =>
      Effect.gen(function* () {
        const document = yield* extract("gzipBomb", { maxRatio: 1_000_000, maxTotalBytes: 4 * 1024 ** 2 })
        expect(document.extractionError).toMatch(/exceed 4194304 bytes uncompressed: refused/)
        const zip = yield* extract("bomb", { maxRatio: 1_000_000, maxTotalBytes: 4 * 1024 ** 2 })
        expect(zip.extractionError).toMatch(/exceed 4194304 bytes uncompressed: refused/)
      })
    )

    it.effect("members beyond the entry limit are refused; those before it are kept", () =>
      Effect.gen(function* () {
        const document = yield* extract("zip", { maxEntries: 1 })
        expect(document.extractionError).toMatch(/more than 1 archive members/)
        expect(document.children.map((child) => child.content)).toEqual([phrases.zipMember])
      })
    )

    it.effect("documents nested deeper than maxDepth are listed with an error and not opened", () =>
      Effect.gen(function* () {
        const document = yield* extract("zip", { maxDepth: 1 })
        const nested = byName(document, "nested.zip")
        expect(nested?.extractionError).toBeUndefined()
        const deep = byName(document, "deep.txt")
        expect(deep?.extractionLevel).toBe(2)
        expect(deep?.content).toBe("")
        expect(deep?.extractionError).toMatch(/embedded more than 1 levels deep/)
      })
    )

    it.effect("a large text file is read only up to the text cap", () =>
      Effect.gen(function* () {
        const file = path.join(corpus.dir(), "large.txt")
        const line = "the same line of words about offshore companies again\n"
        yield* Effect.promise(() => writeFile(file, line.repeat(200_000)))
        const extractor = yield* Extractor
        const document = yield* extractor.extract(file, { ...options, limits: { maxTextBytes: 64 * 1024 } })
        expect(document.contentLength).toBe(line.length * 200_000)
        expect(document.content.length).toBeLessThanOrEqual(64 * 1024)
        expect(document.content.startsWith(line.trim())).toBe(true)
      })
    )

    it.effect("a file that cannot be read fails with DocumentUnreadable", () =>
      Effect.gen(function* () {
        const extractor = yield* Extractor
        const missing = yield* Effect.exit(extractor.extract(path.join(corpus.dir(), "no-such-file.pdf"), options))
        expect(Exit.isFailure(missing) && missing.cause._tag === "Fail" && missing.cause.error._tag).toBe("DocumentUnreadable")
        const directory = yield* Effect.exit(extractor.extract(corpus.dir(), options))
        expect(Exit.isFailure(directory) && directory.cause._tag === "Fail" && directory.cause.error.reason).toBe("not a regular file")
      })
    )

    it.effect("every document of the corpus extracts without failing, errors only where expected", () =>
      Effect.gen(function* () {
        const broken = new Set<CorpusFile>(["corruptPdf", "encryptedZip", "truncatedZip", "bomb", "gzipBomb"])
        const extractor = yield* Extractor
        for (const file of [
          "utf8",
          "html",
          "pdf",
          "docx",
          "eml",
          "mbox",
          "zip",
          "tarGz",
          "corruptPdf",
          "encryptedZip",
          "truncatedZip",
          "bomb",
          "gzipBomb"
        ] as const) {
          const document = yield* extractor.extract(corpus.path(file), options)
          const errors = flatten(document).filter((doc) => doc.extractionError !== undefined)
          expect(errors.length > 0, file).toBe(broken.has(file))
        }
      })
    )
  })
})
