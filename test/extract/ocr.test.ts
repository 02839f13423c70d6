import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Extractor } from "../../src/extract/Extractor.ts"
import { pngBytes, zipBytes } from "../fixtures/binaries.ts"
import { options, useCorpus } from "./helpers.ts"

const corpus = useCorpus()
const originalPath = process.env["PATH"]
const bins: { empty: string; fake: string } = { empty: "", fake: "" }

// A stand-in for tesseract: answers --version, and prints a line naming the image and language it was given.
const fakeTesseract = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "tesseract 5.3.0"; exit 0; fi
echo "Text read by OCR from $(basename "$1") in $4"
`

beforeAll(async () => {
  bins.empty = await mkdtemp(path.join(os.tmpdir(), "quarry-no-ocr-"))
  bins.fake = await mkdtemp(path.join(os.tmpdir(), "quarry-fake-ocr-"))
  await writeFile(path.join(bins.fake, "tesseract"), fakeTesseract)
  await chmod(path.join(bins.fake, "tesseract"), 0o755)
})

afterAll(async () => {
  process.env["PATH"] = originalPath
  await rm(bins.empty, { recursive: true, force: true })
  await rm(bins.fake, { recursive: true, force: true })
})

// The engine's presence is probed once per Extractor, on the first image: PATH is set before that.
const withPath = (dir: () => string) => Effect.sync(() => void (process.env["PATH"] = `${dir()}:/usr/bin:/bin`))

describe("OCR of images", () => {
  describe("without tesseract installed", () => {
    it.layer(Extractor.Default)((it) => {
      it.effect("OCR on: the image is indexed with a clear 'OCR not available' error, OCR off: without error", () =>
        Effect.gen(function* () {
          yield* withPath(() => bins.empty)
          const extractor = yield* Extractor
          const on = yield* extractor.extract(corpus.path("png"), { ...options, ocr: true })
          expect(on.contentType).toBe("image/png")
          expect(on.content).toBe("")
          expect(on.extractionError).toBe("OCR not available: the tesseract binary is not installed")
          const off = yield* extractor.extract(corpus.path("png"), options)
          expect(off.contentType).toBe("image/png")
          expect(off.extractionError).toBeUndefined()
        })
      )
    })
  })

  describe("with a tesseract binary on the PATH", () => {
    it.layer(Extractor.Default)((it) => {
      it.effect("the image's text is tesseract's output, in the language asked for", () =>
        Effect.gen(function* () {
          yield* withPath(() => bins.fake)
          const extractor = yield* Extractor
          const english = yield* extractor.extract(corpus.path("png"), { ...options, ocr: true })
          expect(english.extractionError).toBeUndefined()
          expect(english.content).toBe("Text read by OCR from scan.png in eng")
          const french = yield* extractor.extract(corpus.path("png"), { ...options, ocr: true, language: "FRENCH" })
          expect(french.content).toBe("Text read by OCR from scan.png in fra")
          expect(french.language).toBe("FRENCH")
        })
      )

      it.effect("an embedded image is written to a temporary file for tesseract and read from it", () =>
        Effect.gen(function* () {
          const file = path.join(corpus.dir(), "images.zip")
          yield* Effect.promise(async () => writeFile(file, await zipBytes([{ name: "photo.png", content: pngBytes(16, 16) }])))
          const extractor = yield* Extractor
          const archive = yield* extractor.extract(file, { ...options, ocr: true })
          const image = archive.children[0]
          expect(image?.contentType).toBe("image/png")
          expect(image?.content).toMatch(/^Text read by OCR from [0-9a-f-]{36} in eng$/)
          expect(image?.extractionLevel).toBe(1)
        })
      )
    })
  })
})
