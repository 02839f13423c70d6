import { mkdtemp, rm } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Clock, Deferred, Duration, Effect, Either, Option } from "effect"
import { extractArchive } from "./archive.ts"
import { detectContentType, mime } from "./ContentType.ts"
import {
  type Budget,
  defaultLimits,
  type EmbeddedInput,
  type ExtractedDocument,
  type ExtractLimits,
  type ExtractOptions,
  type Parsed,
  type ParseContext,
  type Parser
} from "./Document.ts"
import { embeddedDocumentId } from "./DocumentId.ts"
import { extractEmail } from "./email.ts"
import { describe, DocumentUnreadable, EmbeddedNotFound, ExtractionFailed } from "./ExtractErrors.ts"
import { extractHtml } from "./html.ts"
import { defaultLanguage, detectLanguage, languageOption } from "./Language.ts"
import { extractMbox } from "./mbox.ts"
import { normaliseMetadata } from "./Metadata.ts"
import { ocrParser, tesseractInstalled } from "./ocr.ts"
import { extractOffice } from "./office.ts"
import { extractPdf } from "./pdf.ts"
import { extractRtf } from "./rtf.ts"
import { digestSource, diskSource, readAll, readOnce, type Source, sourceSize } from "./Source.ts"
import { extractPlainText, textByteCap } from "./text.ts"

/** The bytes of one embedded document, as `documents/src` serves them. */
export interface EmbeddedBytes {
  readonly bytes: Uint8Array
  readonly contentType: string
}

/** An embedded document looked for while a file is extracted again: its bytes are handed over when it is met. */
interface Wanted {
  readonly id: string
  readonly found: Deferred.Deferred<EmbeddedBytes, ExtractionFailed>
}

/** What stays the same for every document of one file on disk. */
interface Run {
  readonly options: ExtractOptions
  readonly limits: ExtractLimits
  readonly path: string
  readonly extractionDate: string
  readonly budget: Budget
  readonly tempDir: Effect.Effect<string, ExtractionFailed>
  readonly wanted?: Wanted | undefined
}

interface Node extends EmbeddedInput {
  readonly depth: number
  readonly parentId: string | undefined
  readonly rootId: string | undefined
}

interface Family {
  readonly parser: Parser
  /**
   * Whether the parser gets a timeout: only those that wait on asynchronous work can be stopped by one. Synchronous
   * parsers (text, HTML, RTF) could not be interrupted anyway, and containers spend their time in their children,
   * which have their own timeouts.
   */
  readonly timed: boolean
  /**
   * How many bytes of a document the parser reads into memory (0: it streams, or reads a few bytes). A file no larger
   * is read once, before hashing, rather than hashed from disk and then read again.
   */
  readonly bytesInMemory: (run: Run) => number
}

const whole = (run: Run) => run.limits.maxFileBytes
const streamed = () => 0

const officeTypes = new Set<string>([mime.docx, mime.xlsx, mime.pptx, mime.odt, mime.ods, mime.odp])
const archiveTypes = new Set<string>([mime.zip, mime.tar, mime.gzip])
const isText = (type: string) =>
  type.startsWith("text/") || type === mime.json || type === mime.xml || type.endsWith("+xml") || type.endsWith("+json")

const tesseract = "tesseract"
const smallFileBytes = 1024 ** 2

/**
 * Extracts a file and everything embedded in it into a tree of documents in the reference's shape. Only an
 * unreadable file fails; a corrupt, encrypted, oversized or unsupported document is returned with what could
 * be read and an `extractionError`.
 */
export class Extractor extends Effect.Service<Extractor>()("quarry/Extractor", {
  effect: Effect.gen(function* () {
    const ocr = ocrParser(tesseract, yield* Effect.cached(tesseractInstalled(tesseract)))

    const familyOf = (type: string): Family | undefined => {
      if (type === mime.html || type === mime.xhtml) return { parser: extractHtml, timed: false, bytesInMemory: whole }
      if (type === mime.rtf) return { parser: extractRtf, timed: false, bytesInMemory: whole }
      if (isText(type)) return { parser: extractPlainText, timed: false, bytesInMemory: textByteCap }
      if (type === mime.pdf) return { parser: extractPdf, timed: true, bytesInMemory: whole }
      if (officeTypes.has(type)) return { parser: extractOffice, timed: true, bytesInMemory: whole }
      if (type === mime.email) return { parser: extractEmail, timed: false, bytesInMemory: whole }
      if (type === mime.mbox) return { parser: extractMbox, timed: false, bytesInMemory: streamed }
      if (archiveTypes.has(type)) return { parser: extractArchive, timed: false, bytesInMemory: streamed }
      if (type.startsWith("image/")) return { parser: ocr, timed: true, bytesInMemory: streamed }
      return undefined
    }

    const parse = (run: Run, family: Family | undefined, source: Source, context: ParseContext) => {
      if (family === undefined) return Effect.succeed<Parsed>({ text: "" })
      const parsing = family.parser(source, context)
      return !family.timed
        ? parsing
        : parsing.pipe(
            Effect.timeoutFail({
              duration: Duration.millis(run.limits.parseTimeoutMillis),
              onTimeout: () => new ExtractionFailed({ reason: `extraction took longer than ${run.limits.parseTimeoutMillis} ms` })
            })
          )
    }

    const extractNode = (run: Run, node: Node): Effect.Effect<ExtractedDocument, DocumentUnreadable> =>
      Effect.gen(function* () {
        const name = node.name ?? ""
        const detected =
          node.contentType === undefined ? yield* Effect.either(detectContentType(node.source, name)) : Either.right(node.contentType)
        const contentType = Either.getOrElse(detected, () => "unknown")
        const family = familyOf(contentType)
        const unreadable = (error: ExtractionFailed) =>
          new DocumentUnreadable({ path: node.depth === 0 ? run.path : `${run.path} (${name})`, reason: error.reason })
        const source = yield* readOnce(node.source, family === undefined ? 0 : family.bytesInMemory(run)).pipe(Effect.mapError(unreadable))
        const digests = yield* digestSource(source, run.options.project).pipe(Effect.mapError(unreadable))
        const id =
          node.parentId === undefined
            ? digests.digest
            : embeddedDocumentId({
                digest: digests.digest,
                parentId: node.parentId,
                relationshipId: node.relationshipId,
                resourceName: node.name
              })
        const children: Array<ExtractedDocument> = []
        if (run.wanted !== undefined && node.parentId !== undefined && id === run.wanted.id) {
          yield* Deferred.complete(
            run.wanted.found,
            Effect.map(readAll(source, run.limits.maxFileBytes), (bytes) => ({ bytes, contentType }))
          )
        }
        const context: ParseContext = {
          name,
          contentType,
          depth: node.depth,
          options: run.options,
          limits: run.limits,
          budget: run.budget,
          tempDir: run.tempDir,
          embed: (input) =>
            extractNode(run, { ...input, depth: node.depth + 1, parentId: id, rootId: node.rootId ?? id }).pipe(
              Effect.map((child) => void children.push(child)),
              Effect.catchTag("DocumentUnreadable", (error) => Effect.logWarning(`embedded document skipped: ${error.message}`))
            )
        }
        const tooDeep = node.depth > run.limits.maxDepth
        const result: Either.Either<Parsed, ExtractionFailed> = tooDeep
          ? Either.left(new ExtractionFailed({ reason: `not extracted: embedded more than ${run.limits.maxDepth} levels deep` }))
          : Either.isLeft(detected)
            ? Either.left(detected.left)
            : yield* Effect.either(parse(run, family, source, context))
        const parsed = Either.getOrElse(result, (): Parsed => ({ text: "" }))
        const trimmed = parsed.text.trim()
        const content = run.options.maxContentLength >= 0 ? trimmed.slice(0, run.options.maxContentLength) : trimmed
        const size = sourceSize(source)
        const raw: Record<string, string> = {
          ...parsed.metadata,
          "Content-Type": parsed.encoding === undefined ? contentType : `${contentType}; charset=${parsed.encoding}`,
          "Content-Length": String(size)
        }
        if (node.name !== undefined) raw["resourceName"] = node.name
        if (parsed.encoding !== undefined) raw["Content-Encoding"] = parsed.encoding
        // Where Tika records a parse failure, so that the document's metadata says why its content is missing.
        if (Either.isLeft(result)) raw["X-TIKA:EXCEPTION:runtime"] = result.left.reason
        return {
          id,
          path: run.path,
          dirname: path.dirname(run.path),
          content,
          contentLength: size,
          contentTextLength: content.length,
          contentType,
          contentEncoding: parsed.encoding ?? "unknown",
          // An archive's text is its member names: no language to detect there.
          language:
            languageOption(run.options.language) ?? (archiveTypes.has(contentType) ? defaultLanguage : yield* detectLanguage(content)),
          metadata: normaliseMetadata(raw),
          extractionDate: run.extractionDate,
          extractionLevel: node.depth,
          parentDocument: node.parentId ?? null,
          rootDocument: node.rootId ?? id,
          tags: [],
          ...(Either.isLeft(result) ? { extractionError: result.left.reason } : {}),
          ...(node.parentId === undefined ? { duplicateId: digests.duplicateId } : {}),
          children
        }
      })

    /**
     * Most files need no temporary directory: it is made on first use and removed with the file's extraction, through
     * `Effect.ensuring` rather than a scope, which costs more than extracting a small text file takes.
     */
    const lazyTemporaryDirectory = () => {
      let dir: string | undefined
      const get = Effect.suspend(() =>
        dir !== undefined
          ? Effect.succeed(dir)
          : Effect.tryPromise({
              try: () => mkdtemp(path.join(os.tmpdir(), "quarry-extract-")),
              catch: (cause) => new ExtractionFailed({ reason: `no temporary directory: ${describe(cause)}` })
            }).pipe(Effect.tap((made) => Effect.sync(() => void (dir = made))))
      )
      const remove = Effect.suspend(() =>
        dir === undefined ? Effect.void : Effect.tryPromise(() => rm(dir ?? "", { recursive: true, force: true })).pipe(Effect.ignoreLogged)
      )
      return { get, remove }
    }

    const extractFile = (filePath: string, options: ExtractOptions, wanted?: Wanted) =>
      Effect.gen(function* () {
        const absolute = path.resolve(filePath)
        // A small file is read once into memory: hashing, detection and parsing then cost no further reads.
        const source = yield* diskSource(absolute, smallFileBytes).pipe(
          Effect.mapError((error) => new DocumentUnreadable({ path: absolute, reason: error.reason }))
        )
        const now = yield* Clock.currentTimeMillis
        const tempDir = lazyTemporaryDirectory()
        const run: Run = {
          options,
          limits: { ...defaultLimits, ...options.limits },
          path: absolute,
          extractionDate: new Date(now).toISOString(),
          budget: { bytes: 0, entries: 0 },
          tempDir: tempDir.get,
          wanted
        }
        return yield* extractNode(run, { source, name: path.basename(absolute), depth: 0, parentId: undefined, rootId: undefined }).pipe(
          Effect.ensuring(tempDir.remove)
        )
      })

    const extract = Effect.fn("Extractor.extract")(function* (filePath: string, options: ExtractOptions) {
      return yield* extractFile(filePath, options, undefined)
    })

    /**
     * The bytes of the embedded document `id` of a file, found by extracting the file again (embedded documents are
     * not stored anywhere else). The extraction stops as soon as the document is met.
     */
    const embedded = Effect.fn("Extractor.embedded")(function* (rootPath: string, options: ExtractOptions, id: string) {
      const found = yield* Deferred.make<EmbeddedBytes, ExtractionFailed>()
      const notFound = new EmbeddedNotFound({ path: rootPath, id })
      const extraction = extractFile(rootPath, options, { id, found }).pipe(
        Effect.zipRight(
          Effect.flatMap(
            Deferred.poll(found),
            Option.match({
              onNone: (): Effect.Effect<EmbeddedBytes, ExtractionFailed | EmbeddedNotFound> => Effect.fail(notFound),
              onSome: (bytes) => bytes
            })
          )
        )
      )
      return yield* Effect.raceFirst(Deferred.await(found), extraction)
    })
    return { extract, embedded }
  })
}) {}
