import { copyFile, mkdir, stat, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import iconv from "iconv-lite"
import { detectContentType } from "../../src/extract/ContentType.ts"
import { Extractor } from "../../src/extract/Extractor.ts"
import { detectLanguage } from "../../src/extract/Language.ts"
import { normaliseMetadata, tikaKey } from "../../src/extract/Metadata.ts"
import { bytesSource, fileSource } from "../../src/extract/Source.ts"
import { decodeText, textCharset } from "../../src/extract/text.ts"
import type { CorpusFile } from "../fixtures/corpus.ts"
import { options, useCorpus } from "./helpers.ts"

const corpus = useCorpus()

/** The corpus file copied under another name, so only its bytes can tell what it is. */
const renamed = (file: CorpusFile, name: string) =>
  Effect.gen(function* () {
    const target = path.join(corpus.dir(), "renamed", name)
    const size = yield* Effect.promise(async () => {
      await mkdir(path.dirname(target), { recursive: true })
      await copyFile(corpus.path(file), target)
      return (await stat(target)).size
    })
    return yield* detectContentType(fileSource(target, size), name)
  })

describe("content type detection", () => {
  it.effect("binary formats are told by their bytes whatever their name", () =>
    Effect.gen(function* () {
      expect(yield* renamed("pdf", "report.txt")).toBe("application/pdf")
      expect(yield* renamed("png", "picture.doc")).toBe("image/png")
      expect(yield* renamed("tarGz", "bundle")).toBe("application/gzip")
      expect(yield* renamed("rtf", "letter.txt")).toBe("application/rtf")
    })
  )

  it.effect("office packages are told apart from plain zips by the members they hold", () =>
    Effect.gen(function* () {
      expect(yield* renamed("docx", "memo.zip")).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
      expect(yield* renamed("xlsx", "budget.zip")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
      expect(yield* renamed("pptx", "slides.zip")).toBe("application/vnd.openxmlformats-officedocument.presentationml.presentation")
      expect(yield* renamed("odt", "notes.zip")).toBe("application/vnd.oasis.opendocument.text")
      expect(yield* renamed("ods", "ledger.zip")).toBe("application/vnd.oasis.opendocument.spreadsheet")
      expect(yield* renamed("zip", "bundle.docx")).toBe("application/zip")
    })
  )

  it.effect("text formats are sniffed from their first characters", () =>
    Effect.gen(function* () {
      expect(yield* renamed("html", "page")).toBe("text/html")
      expect(yield* renamed("eml", "message.txt")).toBe("message/rfc822")
      expect(yield* renamed("mbox", "mailbox")).toBe("application/mbox")
      expect(yield* renamed("utf8", "notes.pdf")).toBe("text/plain")
    })
  )

  it.effect("the extension names a text format only when the bytes are text, and binary unknowns otherwise", () =>
    Effect.gen(function* () {
      expect(yield* renamed("csv", "table.csv")).toBe("text/csv")
      expect(yield* renamed("json", "record.json")).toBe("application/json")
      expect(yield* renamed("osFile", "store.csv")).toBe("application/octet-stream")
      const legacy = path.join(corpus.dir(), "old.doc")
      yield* Effect.promise(() => writeFile(legacy, Buffer.from([0x01, 0x02, 0x00, 0xff, 0x00, 0x10])))
      expect(yield* detectContentType(fileSource(legacy, 6), "old.doc")).toBe("application/msword")
      expect(yield* detectContentType(bytesSource(Buffer.from("just words")), "x")).toBe("text/plain")
    })
  )
})

describe("charset", () => {
  const curly = "The invoice \u201cfinal\u201d was paid in \u20ac to the caf\u00e9 \u2014 twice."
  const japanese = "東京都の会議で、政府の担当者は新しい契約について説明しました。"

  it("is detected for bytes that declare nothing and are not UTF-8", () => {
    expect(textCharset(iconv.encode(curly, "windows-1252"))).toEqual({ encoding: "windows-1252", source: "detected" })
    expect(decodeText(iconv.encode(curly, "windows-1252"))).toEqual({ text: curly, encoding: "windows-1252" })
    expect(decodeText(iconv.encode(japanese, "Shift_JIS"))).toEqual({ text: japanese, encoding: "Shift_JIS" })
  })

  it("is the declared one when it is known, without detection", () => {
    const russian = iconv.encode("Совет директоров одобрил перевод средств.", "windows-1251")
    expect(textCharset(russian, "windows-1251")).toEqual({ encoding: "windows-1251", source: "declared" })
    expect(decodeText(russian, "windows-1251").text).toBe("Совет директоров одобрил перевод средств.")
    // An unknown name is no declaration.
    expect(textCharset(iconv.encode(curly, "windows-1252"), "x-unknown").source).toBe("detected")
  })

  it("is UTF-8 without detection for valid UTF-8, even cut inside a character", () => {
    const bytes = Buffer.from(`${curly} ${japanese}`, "utf8")
    expect(textCharset(bytes)).toEqual({ encoding: "UTF-8", source: "utf-8" })
    expect(textCharset(bytes.subarray(0, bytes.length - 1))).toEqual({ encoding: "UTF-8", source: "utf-8" })
  })

  it("follows a byte-order mark, and reports pure ASCII as Latin-1 as Tika does", () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(curly, "utf16le")])
    expect(textCharset(utf16, "ISO-8859-1")).toEqual({ encoding: "UTF-16LE", source: "bom" })
    expect(decodeText(utf16).text).toBe(curly)
    expect(textCharset(Buffer.from("plain words, 42", "ascii"))).toEqual({ encoding: "ISO-8859-1", source: "ascii" })
  })

  it.layer(Extractor.Default)((it) => {
    it.effect("of a page is the one its meta tag declares, and of an XML file the one its declaration names", () =>
      Effect.gen(function* () {
        const extractor = yield* Extractor
        const page = path.join(corpus.dir(), "charset", "page.html")
        const xml = path.join(corpus.dir(), "charset", "record.xml")
        yield* Effect.promise(async () => {
          await mkdir(path.dirname(page), { recursive: true })
          await writeFile(
            page,
            iconv.encode(
              `<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"></head><body><p>Совет директоров</p></body></html>`,
              "windows-1251"
            )
          )
          await writeFile(
            xml,
            iconv.encode(`<?xml version="1.0" encoding="windows-1251"?>\n<record>Совет директоров</record>`, "windows-1251")
          )
        })
        const fromPage = yield* extractor.extract(page, options)
        expect(fromPage.contentEncoding).toBe("windows-1251")
        expect(fromPage.content).toBe("Совет директоров")
        const fromXml = yield* extractor.extract(xml, options)
        expect(fromXml.contentEncoding).toBe("windows-1251")
        expect(fromXml.content).toContain("<record>Совет директоров</record>")
      })
    )
  })
})

describe("language detection", () => {
  it.effect("names the reference's enum for the main languages", () =>
    Effect.gen(function* () {
      expect(yield* detectLanguage("The board approved the transfer of the funds to the trust in Jersey last week.")).toBe("ENGLISH")
      expect(yield* detectLanguage("Le conseil a approuvé le transfert des fonds vers la fiducie la semaine dernière.")).toBe("FRENCH")
      expect(yield* detectLanguage("Der Vorstand hat die Überweisung der Gelder an die Stiftung letzte Woche genehmigt.")).toBe("GERMAN")
      expect(yield* detectLanguage("La junta aprobó la transferencia de los fondos al fideicomiso la semana pasada.")).toBe("SPANISH")
      expect(yield* detectLanguage("Совет директоров одобрил перевод средств в траст на прошлой неделе.")).toBe("RUSSIAN")
    })
  )

  it.effect("answers ENGLISH, the reference's default, when there is nothing to tell", () =>
    Effect.gen(function* () {
      expect(yield* detectLanguage("")).toBe("ENGLISH")
      expect(yield* detectLanguage("1200 3400")).toBe("ENGLISH")
    })
  )
})

describe("metadata keys", () => {
  it("are Tika's names lower-cased with non-alphanumerics as underscores, dates with an ISO twin", () => {
    expect(tikaKey("resourceName")).toBe("tika_metadata_resourcename")
    expect(tikaKey("Content-Type")).toBe("tika_metadata_content_type")
    expect(tikaKey("Message:Raw-Header:Thread-Index")).toBe("tika_metadata_message_raw_header_thread_index")
    expect(normaliseMetadata({ "dcterms:created": "2020-03-15T10:00:00.000+01:00", "dc:title": "x" })).toEqual({
      tika_metadata_dcterms_created: "2020-03-15T10:00:00.000+01:00",
      tika_metadata_dcterms_created_iso8601: "2020-03-15T09:00:00Z",
      tika_metadata_dc_title: "x"
    })
  })
})
