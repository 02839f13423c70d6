import { Effect } from "effect"
import type yauzl from "yauzl"
import { mime } from "./ContentType.ts"
import type { ExtractLimits, Parser } from "./Document.ts"
import { ExtractionFailed, failedTo } from "./ExtractErrors.ts"
import { documentMetadata } from "./Metadata.ts"
import { odfText, sharedStrings, sheetText, slideText, workbookSheets } from "./officeXml.ts"
import { readAll, type Source } from "./Source.ts"
import { allEntries, openZip, ratioExceeded, readEntry } from "./Zip.ts"
import { walkXml, xmlFields } from "./Xml.ts"
import { lazyModule } from "../LazyModule.ts"

/**
 * Office packages (OOXML and OpenDocument) are zips of XML parts. Every member's declared size is checked
 * before anything is inflated, so a package cannot be a zip bomb either.
 */
const openPackage = (source: Source, limits: ExtractLimits) =>
  Effect.gen(function* () {
    const zip = yield* openZip(source)
    const entries = new Map<string, yauzl.Entry>()
    let declared = 0
    for (const entry of yield* allEntries(zip)) {
      const refused = ratioExceeded(entry.uncompressedSize, entry.compressedSize, limits)
      if (refused !== undefined) return yield* new ExtractionFailed({ reason: `${entry.fileName}: ${refused}` })
      declared += entry.uncompressedSize
      entries.set(entry.fileName, entry)
    }
    if (declared > limits.maxFileBytes)
      return yield* new ExtractionFailed({ reason: `the package expands to ${declared} bytes (limit ${limits.maxFileBytes})` })
    const part = (name: string) => {
      const entry = entries.get(name)
      return entry === undefined
        ? Effect.succeed(undefined)
        : readEntry(zip, entry, limits).pipe(Effect.map((bytes) => bytes.toString("utf8")))
    }
    return { names: [...entries.keys()], part }
  })

type Package = Effect.Effect.Success<ReturnType<typeof openPackage>>

const ooxmlMetadata = (pkg: Package) =>
  Effect.gen(function* () {
    const core = yield* xmlFields((yield* pkg.part("docProps/core.xml")) ?? "<x/>", [
      "dc:title",
      "dc:creator",
      "cp:lastModifiedBy",
      "dc:subject",
      "cp:keywords",
      "dcterms:created",
      "dcterms:modified"
    ])
    const app = yield* xmlFields((yield* pkg.part("docProps/app.xml")) ?? "<x/>", ["Pages", "Slides"])
    const pages = app["Pages"] ?? app["Slides"]
    return documentMetadata({
      title: core["dc:title"],
      author: core["dc:creator"],
      lastAuthor: core["cp:lastModifiedBy"],
      subject: core["dc:subject"],
      keywords: core["cp:keywords"],
      created: core["dcterms:created"],
      modified: core["dcterms:modified"],
      pages: pages === undefined ? undefined : Number(pages)
    })
  })

const odfMetadata = (pkg: Package) =>
  Effect.gen(function* () {
    const xml = (yield* pkg.part("meta.xml")) ?? "<x/>"
    const meta = yield* xmlFields(xml, [
      "dc:title",
      "meta:initial-creator",
      "dc:creator",
      "dc:subject",
      "meta:keyword",
      "meta:creation-date",
      "dc:date"
    ])
    let pages: number | undefined
    yield* walkXml(xml, {
      open: (name, attributes) => {
        if (name === "meta:document-statistic" && attributes["meta:page-count"] !== undefined) pages = Number(attributes["meta:page-count"])
      }
    })
    return documentMetadata({
      title: meta["dc:title"],
      author: meta["meta:initial-creator"] ?? meta["dc:creator"],
      lastAuthor: meta["dc:creator"],
      subject: meta["dc:subject"],
      keywords: meta["meta:keyword"],
      created: meta["meta:creation-date"],
      modified: meta["dc:date"],
      pages
    })
  })

/** mammoth loads with the first Word document, not at the start of every process that imports the extractor. */
const loadMammoth = lazyModule(() => import("mammoth"))

const docxText = (source: Source, limits: ExtractLimits) =>
  Effect.gen(function* () {
    const bytes = yield* readAll(source, limits.maxFileBytes)
    const { default: mammoth } = yield* loadMammoth
    const result = yield* Effect.tryPromise({
      try: () => mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }),
      catch: failedTo("unreadable Word document")
    })
    return result.value
  })

const xlsxText = (pkg: Package) =>
  Effect.gen(function* () {
    const strings = yield* sharedStrings((yield* pkg.part("xl/sharedStrings.xml")) ?? "<sst/>")
    const sheets = yield* workbookSheets(
      (yield* pkg.part("xl/workbook.xml")) ?? "<workbook/>",
      (yield* pkg.part("xl/_rels/workbook.xml.rels")) ?? "<r/>"
    )
    const texts: Array<string> = []
    for (const sheet of sheets) texts.push(`${sheet.name}\n${yield* sheetText((yield* pkg.part(sheet.part)) ?? "<r/>", strings)}`)
    return texts.join("\n\n")
  })

const slideNumber = (name: string) => Number(/slide(\d+)\.xml$/.exec(name)?.[1] ?? 0)

const pptxText = (pkg: Package) =>
  Effect.gen(function* () {
    const slides = pkg.names.filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name)).sort((a, b) => slideNumber(a) - slideNumber(b))
    const texts: Array<string> = []
    for (const slide of slides) texts.push(yield* slideText((yield* pkg.part(slide)) ?? "<r/>"))
    return texts.join("\n\n")
  })

/** Word, Excel and PowerPoint (OOXML) and OpenDocument text, spreadsheets and presentations. */
export const extractOffice: Parser = (source, context) =>
  Effect.scoped(
    Effect.gen(function* () {
      const pkg = yield* openPackage(source, context.limits)
      switch (context.contentType) {
        case mime.docx:
          return { text: yield* docxText(source, context.limits), metadata: yield* ooxmlMetadata(pkg) }
        case mime.xlsx:
          return { text: yield* xlsxText(pkg), metadata: yield* ooxmlMetadata(pkg) }
        case mime.pptx:
          return { text: yield* pptxText(pkg), metadata: yield* ooxmlMetadata(pkg) }
        default:
          return { text: yield* odfText((yield* pkg.part("content.xml")) ?? "<r/>"), metadata: yield* odfMetadata(pkg) }
      }
    })
  )
