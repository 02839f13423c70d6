import * as path from "node:path"
import { Effect } from "effect"
import { failedTo } from "./ExtractErrors.ts"
import { readPrefix, type Source } from "./Source.ts"
import { looksLikeZip, zipEntryNames } from "./Zip.ts"
import { lazyModule } from "../LazyModule.ts"

/** Content types (Tika's names) of the formats the extractor reads. */
export const mime = {
  text: "text/plain",
  csv: "text/csv",
  json: "application/json",
  xml: "application/xml",
  html: "text/html",
  xhtml: "application/xhtml+xml",
  pdf: "application/pdf",
  rtf: "application/rtf",
  email: "message/rfc822",
  mbox: "application/mbox",
  zip: "application/zip",
  tar: "application/x-tar",
  gzip: "application/gzip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  binary: "application/octet-stream"
} as const

const byExtension: Readonly<Record<string, string>> = {
  txt: mime.text,
  text: mime.text,
  log: mime.text,
  md: "text/markdown",
  csv: mime.csv,
  tsv: "text/tab-separated-values",
  json: mime.json,
  xml: mime.xml,
  html: mime.html,
  htm: mime.html,
  xhtml: mime.xhtml,
  pdf: mime.pdf,
  rtf: mime.rtf,
  eml: mime.email,
  mbox: mime.mbox,
  zip: mime.zip,
  tar: mime.tar,
  gz: mime.gzip,
  tgz: mime.gzip,
  docx: mime.docx,
  xlsx: mime.xlsx,
  pptx: mime.pptx,
  odt: mime.odt,
  ods: mime.ods,
  odp: mime.odp,
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint",
  msg: "application/vnd.ms-outlook",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  tif: "image/tiff",
  tiff: "image/tiff",
  bmp: "image/bmp"
}

/** The usual extension of each content type: the first extension naming it above. */
const extensionOf: ReadonlyMap<string, string> = new Map(
  Object.entries(byExtension)
    .reverse()
    .map(([extension, type]) => [type, extension] as const)
)

/** The extension a file of this content type would have (`bin` when none is known), without the dot. */
export const extensionFor = (contentType: string) => extensionOf.get(contentType) ?? "bin"

// Formats the extension may name only when the bytes themselves are text.
const textual = new Set<string>([
  mime.text,
  mime.csv,
  mime.json,
  mime.xml,
  mime.html,
  mime.xhtml,
  "text/markdown",
  "text/tab-separated-values",
  mime.email,
  mime.mbox
])

const extensionType = (name: string) => byExtension[path.extname(name).slice(1).toLowerCase()]

// Tika names some of file-type's results differently.
const renamed: Readonly<Record<string, string>> = { "application/x-cfb": "application/x-tika-msoffice", "application/x-gzip": mime.gzip }

/** Package formats told apart by the members a zip holds, as Tika's container detector does. */
const packageType = (names: ReadonlyArray<string>, mimetype: string | undefined) => {
  const has = (name: string) => names.includes(name)
  if (has("word/document.xml")) return mime.docx
  if (has("xl/workbook.xml")) return mime.xlsx
  if (has("ppt/presentation.xml")) return mime.pptx
  if (mimetype !== undefined && mimetype.startsWith("application/vnd.oasis.opendocument.")) return mimetype
  return mime.zip
}

const headerLine = /^[A-Za-z][A-Za-z0-9-]*:[ \t]/
const mailHeaders = /^(from|to|cc|subject|date|message-id|received|mime-version|return-path|content-type|x-[a-z-]+):/gim

/** Text formats recognised from their first characters (file-type only reads binary signatures). */
const sniffText = (head: Uint8Array): string | undefined => {
  const sample = Buffer.from(head.subarray(0, 2048))
    .toString("latin1")
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, "")
  const start = sample.trimStart().slice(0, 512).toLowerCase()
  if (start.startsWith("{\\rtf")) return mime.rtf
  if (start.startsWith("<!doctype html") || start.startsWith("<html") || /<(head|body)[\s>]/.test(start)) return mime.html
  if (start.startsWith("<?xml")) return /<html[\s>]/.test(sample.toLowerCase()) ? mime.xhtml : mime.xml
  const lines = sample.split(/\r?\n/)
  if (sample.startsWith("From ") && headerLine.test(lines[1] ?? "")) return mime.mbox
  if (headerLine.test(lines[0] ?? "") && (sample.match(mailHeaders)?.length ?? 0) >= 3) return mime.email
  return undefined
}

/** Text, unless NUL bytes or many control characters say otherwise. */
const isText = (head: Uint8Array) => {
  if (head.byteLength === 0) return true
  let control = 0
  for (const byte of head) {
    if (byte === 0) return false
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) control++
  }
  return control / head.byteLength < 0.1
}

/** file-type loads at the first detection, not at the start of every process that imports the extractor. */
const loadFileType = lazyModule(() => import("file-type"))

/**
 * The content type of a document, without parameters: magic bytes first (file-type), then zip members for
 * office packages, then text sniffing, and the extension last, only where the bytes cannot tell.
 */
export const detectContentType = (source: Source, name: string) =>
  Effect.gen(function* () {
    const head = yield* readPrefix(source, 8192)
    // Office and OpenDocument packages are told by their members straight away: file-type would first inflate the
    // package's [Content_Types].xml through web streams, which cost more than the rest of a small document's extraction.
    const packaged = looksLikeZip(head) ? yield* zipPackageType(source) : undefined
    if (packaged !== undefined && packaged !== mime.zip) return packaged
    const { fileTypeFromBuffer, fileTypeFromFile } = yield* loadFileType
    const detected = yield* Effect.tryPromise({
      try: () => (source._tag === "File" ? fileTypeFromFile(source.path) : fileTypeFromBuffer(source.bytes)),
      catch: failedTo("cannot detect the content type")
    }).pipe(Effect.orElseSucceed(() => undefined))
    if (detected !== undefined) {
      if (detected.mime === mime.zip) return packaged ?? (yield* zipPackageType(source))
      // file-type calls anything starting with `<?xml` XML, XHTML pages included.
      if (detected.mime === mime.xml) return sniffText(head) ?? mime.xml
      return renamed[detected.mime] ?? detected.mime
    }
    if (packaged !== undefined) return packaged
    const sniffed = sniffText(head)
    if (sniffed !== undefined) return sniffed
    const fromName = extensionType(name)
    if (isText(head)) return fromName !== undefined && textual.has(fromName) ? fromName : mime.text
    return fromName !== undefined && !textual.has(fromName) ? fromName : mime.binary
  })

const zipPackageType = (source: Source) =>
  zipEntryNames(source).pipe(
    Effect.flatMap((names) =>
      names.includes("mimetype")
        ? odfMimetype(source).pipe(Effect.map((type) => packageType(names, type)))
        : Effect.succeed(packageType(names, undefined))
    ),
    Effect.orElseSucceed(() => mime.zip)
  )

/** ODF packages store their type uncompressed as the first member, `mimetype`. */
const odfMimetype = (source: Source) =>
  readPrefix(source, 512).pipe(
    Effect.map((head) => {
      const bytes = Buffer.from(head)
      if (bytes.byteLength < 30 || bytes.readUInt16LE(8) !== 0) return undefined
      const nameEnd = 30 + bytes.readUInt16LE(26)
      const dataStart = nameEnd + bytes.readUInt16LE(28)
      if (bytes.toString("latin1", 30, nameEnd) !== "mimetype") return undefined
      return bytes.toString("latin1", dataStart, dataStart + bytes.readUInt32LE(18))
    })
  )
