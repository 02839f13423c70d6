import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { languages, OcrEngineUnavailable, parseLanguage, parseTesseractLanguages, tesseractLanguages } from "../../src/extract/Languages.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"

/** Whether a `tesseract` executable is on the PATH: the OCR endpoint answers 200 with it, 503 without. */
const tesseractInstalled = (process.env.PATH ?? "")
  .split(path.delimiter)
  .some((dir) => dir !== "" && fs.existsSync(path.join(dir, "tesseract")))

const names = (found: ReadonlyArray<{ readonly name: string }>) => found.map((entry) => entry.name)

describe("the language table", () => {
  it("has unique names and three-letter ISO 639-2 codes, with the reference's first languages and UNKNOWN", () => {
    expect(new Set(names(languages)).size).toBe(languages.length)
    expect(new Set(languages.map((entry) => entry.iso6392)).size).toBe(languages.length)
    for (const entry of languages) expect(entry.iso6392).toMatch(/^[a-z]{3}$/)
    expect(languages.slice(0, 4).map((entry) => [entry.name, entry.iso6392])).toEqual([
      ["ENGLISH", "eng"],
      ["SPANISH", "spa"],
      ["GERMAN", "deu"],
      ["FRENCH", "fra"]
    ])
    expect(languages.at(-1)).toMatchObject({ name: "UNKNOWN", iso6392: "ukn" })
  })

  it("finds a language by ISO 639-2/T, 639-2/B, 639-1 code or name, whatever the case", () => {
    for (const code of ["fra", "FRE", "fr", "french", " Fra "]) expect(parseLanguage(code)?.name, code).toBe("FRENCH")
    expect(parseLanguage("chi")?.name).toBe("CHINESE")
    expect(parseLanguage("xx")).toBeUndefined()
  })
})

describe("tesseract --list-langs", () => {
  it("parses the output of Tesseract 4 and 5: trained data variants merged, non-languages left out", () => {
    const output = [
      'List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (9):',
      "chi_sim",
      "chi_tra",
      "deu",
      "deu_latf",
      "eng",
      "equ",
      "fra",
      "osd",
      "script/Latin",
      ""
    ].join("\n")
    expect(parseTesseractLanguages(output).map((entry) => [entry.iso6392, entry.name])).toEqual([
      ["zho", "CHINESE"],
      ["deu", "GERMAN"],
      ["eng", "ENGLISH"],
      ["fra", "FRENCH"]
    ])
  })

  it("parses the output of Tesseract 3 (its header has no folder) with Windows line ends", () => {
    expect(names(parseTesseractLanguages("List of available languages (2):\r\nspa\r\nvie\r\n"))).toEqual(["SPANISH", "VIETNAMESE"])
  })

  it.effect("fails with OcrEngineUnavailable when the binary does not exist", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(tesseractLanguages("quarry-no-such-tesseract"))
      expect(exit).toStrictEqual(
        Exit.fail(new OcrEngineUnavailable({ message: "the OCR engine (quarry-no-such-tesseract) is not installed" }))
      )
    })
  )
})

// `layer` rather than `it.layer`: @effect/vitest's `it.layer` is rebound by each call, so a later suite would
// also rebuild (and nest under) the servers of the suites before it.
for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`GET /api/settings/*/languages on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("lists every language of the text extractor as {iso6392, name}", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/settings/text/languages")
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("application/json;charset=UTF-8")
          const body = yield* bodyJson(response)
          expect(body).toEqual(languages.map((entry) => ({ iso6392: entry.iso6392, name: entry.name })))
          expect(body).toEqual(
            expect.arrayContaining([
              { iso6392: "eng", name: "ENGLISH" },
              { iso6392: "fra", name: "FRENCH" },
              { iso6392: "vie", name: "VIETNAMESE" },
              { iso6392: "ukn", name: "UNKNOWN" }
            ])
          )
        })
      )

      it.effect.skipIf(tesseractInstalled)("answers 503 with an error body when Tesseract is not installed", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/settings/ocr/languages")
          expect(response.status).toBe(503)
          expect(response.headers.get("content-type")).toBe("application/json;charset=UTF-8")
          expect(yield* bodyJson(response)).toEqual({ error: "the OCR engine (tesseract) is not installed" })
        })
      )

      it.effect.skipIf(!tesseractInstalled)("lists Tesseract's languages when it is installed", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/settings/ocr/languages")
          expect(response.status).toBe(200)
          const body = yield* bodyJson(response)
          expect(Array.isArray(body) && body.every((entry) => languages.some((known) => known.iso6392 === entry.iso6392))).toBe(true)
        })
      )
    })
  })
}
