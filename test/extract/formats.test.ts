import { readFile, stat } from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Extractor } from "../../src/extract/Extractor.ts"
import { type CorpusFile, phrases, properties } from "../fixtures/corpus.ts"
import { options, useCorpus } from "./helpers.ts"

const corpus = useCorpus()

const extract = (file: CorpusFile, overrides: Partial<typeof options> = {}) =>
  Effect.flatMap(Extractor, (extractor) => extractor.extract(corpus.path(file), { ...options, ...overrides }))

interface Expectation {
  readonly file: CorpusFile
  readonly contentType: string
  readonly text: ReadonlyArray<string>
  readonly metadata?: Readonly<Record<string, string>>
  readonly language?: string
  readonly encoding?: string
}

const documentProperties = {
  tika_metadata_dc_title: properties.title,
  tika_metadata_title: properties.title,
  tika_metadata_dc_creator: properties.author,
  tika_metadata_author: properties.author,
  tika_metadata_dcterms_created: properties.created,
  tika_metadata_dcterms_created_iso8601: properties.created
}

const expectations: ReadonlyArray<Expectation> = [
  { file: "utf8", contentType: "text/plain", text: [phrases.utf8], language: "ENGLISH", encoding: "UTF-8" },
  { file: "latin1", contentType: "text/plain", text: [phrases.french, "Genève"], language: "FRENCH", encoding: "ISO-8859-1" },
  {
    file: "html",
    contentType: "text/html",
    text: [phrases.html, "The registry lists 42 vessels."],
    metadata: { tika_metadata_title: "Shipping registry", tika_metadata_author: "Investigations Desk" },
    encoding: "UTF-8"
  },
  {
    file: "pdf",
    contentType: "application/pdf",
    text: phrases.pdfPages,
    metadata: { ...documentProperties, tika_metadata_xmptpg_npages: "2" }
  },
  {
    file: "docx",
    contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    text: [phrases.docx],
    metadata: documentProperties
  },
  {
    file: "xlsx",
    contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    text: ["Payments", `${phrases.xlsx}\tAmount`, "Acme\t1200"],
    metadata: documentProperties
  },
  {
    file: "pptx",
    contentType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    text: phrases.pptx,
    metadata: documentProperties
  },
  { file: "odt", contentType: "application/vnd.oasis.opendocument.text", text: [phrases.odt], metadata: documentProperties },
  {
    file: "ods",
    contentType: "application/vnd.oasis.opendocument.spreadsheet",
    text: [`${phrases.ods}\tTotal`, "Acme\t1200"],
    metadata: documentProperties
  },
  {
    file: "rtf",
    contentType: "application/rtf",
    text: [phrases.rtf, "à Genève", "euro sign € and café"],
    metadata: {
      tika_metadata_title: "Consultancy letter",
      tika_metadata_author: "Jane Doe",
      tika_metadata_dcterms_created_iso8601: "2023-11-05T14:30:00Z"
    }
  },
  {
    file: "eml",
    contentType: "message/rfc822",
    text: [phrases.email],
    metadata: {
      tika_metadata_message_from: "Alice Martin <alice@example.org>",
      tika_metadata_message_to: "Bob Stone <bob@example.org>",
      tika_metadata_subject: "Contract for the harbour",
      tika_metadata_dc_title: "Contract for the harbour",
      tika_metadata_dcterms_created_iso8601: "2024-01-02T09:15:00Z",
      tika_metadata_message_raw_header_message_id: "<contract-1@example.org>"
    }
  },
  // Pure ASCII is reported as Latin-1, as Tika does.
  { file: "csv", contentType: "text/csv", text: [phrases.csv, "company,country,amount"], encoding: "ISO-8859-1" },
  { file: "json", contentType: "application/json", text: [phrases.json, '"officers"'], encoding: "ISO-8859-1" }
]

describe("Extractor: text and metadata of each format", () => {
  it.layer(Extractor.Default)((it) => {
    for (const expected of expectations) {
      it.effect(`${expected.file}: ${expected.contentType}`, () =>
        Effect.gen(function* () {
          const document = yield* extract(expected.file)
          const bytes = yield* Effect.promise(() => readFile(corpus.path(expected.file)))
          expect(document.extractionError).toBeUndefined()
          expect(document.contentType).toBe(expected.contentType)
          for (const text of expected.text) expect(document.content).toContain(text)
          expect(document.content).toBe(document.content.trim())
          expect(document.contentTextLength).toBe(document.content.length)
          expect(document.contentLength).toBe(bytes.byteLength)
          expect(document.metadata).toMatchObject({
            ...expected.metadata,
            tika_metadata_resourcename: path.basename(corpus.path(expected.file)),
            tika_metadata_content_length: String(bytes.byteLength)
          })
          expect(document.metadata["tika_metadata_content_type"]?.split(";")[0]).toBe(expected.contentType)
          expect(document.language).toBe(expected.language ?? "ENGLISH")
          expect(document.contentEncoding).toBe(expected.encoding ?? "unknown")
          expect(document.extractionLevel).toBe(0)
          expect(document.parentDocument).toBeNull()
          expect(document.rootDocument).toBe(document.id)
          expect(document.path).toBe(corpus.path(expected.file))
          expect(document.dirname).toBe(path.dirname(corpus.path(expected.file)))
          expect(document.tags).toEqual([])
          expect(Number.isNaN(Date.parse(document.extractionDate))).toBe(false)
        })
      )
    }

    it.effect("text formats say their charset in the Content-Type metadata, as Tika does", () =>
      Effect.gen(function* () {
        const document = yield* extract("latin1")
        expect(document.metadata["tika_metadata_content_type"]).toBe("text/plain; charset=ISO-8859-1")
        expect(document.metadata["tika_metadata_content_encoding"]).toBe("ISO-8859-1")
      })
    )

    it.effect("HTML keeps no markup, link targets or image references", () =>
      Effect.gen(function* () {
        const document = yield* extract("html")
        expect(document.content).not.toMatch(/<|https:|x\.png/)
      })
    )

    it.effect("content is cut at maxContentLength characters; contentLength stays the file's size", () =>
      Effect.gen(function* () {
        const document = yield* extract("utf8", { maxContentLength: 20 })
        expect(document.content).toBe(phrases.utf8.slice(0, 20))
        expect(document.contentTextLength).toBe(20)
        expect(document.contentLength).toBe((yield* Effect.promise(() => stat(corpus.path("utf8")))).size)
      })
    )

    it.effect("a language given as an option wins over detection", () =>
      Effect.gen(function* () {
        expect((yield* extract("utf8", { language: "fra" })).language).toBe("FRENCH")
        expect((yield* extract("latin1", { language: "GERMAN" })).language).toBe("GERMAN")
      })
    )

    it.effect("a hidden file and an OS file are extracted like any other (skipping them is the scan's job)", () =>
      Effect.gen(function* () {
        const hidden = yield* extract("hidden")
        expect(hidden.content).toContain("A hidden file")
        const osFile = yield* extract("osFile")
        expect(osFile.contentType).toBe("application/octet-stream")
        expect(osFile.content).toBe("")
        expect(osFile.extractionError).toBeUndefined()
      })
    )
  })
})
