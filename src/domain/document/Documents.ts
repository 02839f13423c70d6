import { stat } from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { extensionFor } from "../../extract/ContentType.ts"
import { Extractor } from "../../extract/Extractor.ts"
import { DocumentIndex, type IndexedDocument } from "../../search/DocumentIndex.ts"
import { maskAllows, occurrences, slice, sliceBounds } from "./Content.ts"
import {
  DocumentForbidden,
  DocumentNotFound,
  EmptyContentQuery,
  InvalidContentRequest,
  SourceMissing,
  TranslationNotFound
} from "./DocumentErrors.ts"

/** Who asks, as the access rules need it: a document is read only in a project the caller may read. */
export interface Caller {
  readonly grantedProjects: ReadonlyArray<string>
  readonly address: string
}

/** What `documents/src` serves: a file from disk, or the bytes of an embedded document taken out of its root file. */
export type DocumentSource =
  | { readonly _tag: "File"; readonly path: string; readonly size: number; readonly contentType: string; readonly fileName: string }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array; readonly contentType: string; readonly fileName: string }

/** Blank, or `original` for searches, means the original text. */
const isOriginal = (targetLanguage: string | undefined) =>
  targetLanguage === undefined || targetLanguage.trim() === "" || targetLanguage === "original"

/** Reading a document's source, text slices and occurrences, with the project access checks of the reference. */
export class Documents extends Effect.Service<Documents>()("quarry/Documents", {
  effect: Effect.gen(function* () {
    const index = yield* DocumentIndex
    const extractor = yield* Extractor
    const sql = yield* SqlClient.SqlClient

    const requireGranted = (project: string, caller: Caller) =>
      caller.grantedProjects.includes(project)
        ? Effect.void
        : Effect.fail(new DocumentForbidden({ project, reason: `no access to project ${project}` }))

    /** Without routing the id alone finds the document, as a get on the reference's single-shard index does. */
    const find = (project: string, id: string, routing: string | undefined) =>
      index
        .get(project, id, routing === undefined || routing === "" ? undefined : routing)
        .pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(new DocumentNotFound({ project, id })), onSome: Effect.succeed })))

    /** Only projects with a row have a mask; the others allow every address. */
    const requireAllowedAddress = (project: string, caller: Caller) =>
      sql<{ mask: string | null }>`SELECT allow_from_mask AS mask FROM projects WHERE id = ${project}`.pipe(
        dieOnSqlError,
        Effect.flatMap((rows) =>
          rows.every((row) => maskAllows(row.mask, caller.address))
            ? Effect.void
            : Effect.fail(new DocumentForbidden({ project, reason: "Download not allowed" }))
        )
      )

    /** Bytes the client can be sent as they are; `unknown` is what Tika answers for undetected types. */
    const servedType = (contentType: string) => (contentType === "unknown" ? "application/octet-stream" : contentType)

    /**
     * An embedded document's bytes exist only inside its root file, so the root file is extracted again up to it
     * (ids do not depend on OCR, so none is run). The reference names it `<first 10 characters of id>.<extension>`.
     */
    const embeddedSource = (project: string, document: IndexedDocument) =>
      extractor.embedded(document.path, { project, ocr: false, maxContentLength: -1 }, document.id).pipe(
        Effect.mapError((error) => new SourceMissing({ path: document.path, reason: error.message })),
        Effect.map(({ bytes }): DocumentSource => {
          const contentType = servedType(document.contentType)
          return { _tag: "Bytes", bytes, contentType, fileName: `${document.id.slice(0, 10)}.${extensionFor(document.contentType)}` }
        })
      )

    /** The original file of a top-level document, or the bytes of an embedded one. */
    const source = Effect.fn("Documents.source")(function* (project: string, id: string, routing: string | undefined, caller: Caller) {
      yield* requireGranted(project, caller)
      yield* requireAllowedAddress(project, caller)
      const document = yield* find(project, id, routing)
      if (document.parentDocument !== null) return yield* embeddedSource(project, document)
      const info = yield* Effect.tryPromise(() => stat(document.path)).pipe(
        Effect.filterOrFail((info) => info.isFile()),
        Effect.mapError(() => new SourceMissing({ path: document.path, reason: "the file is missing" }))
      )
      return {
        _tag: "File",
        path: document.path,
        size: info.size,
        contentType: servedType(document.contentType),
        fileName: path.basename(document.path)
      } satisfies DocumentSource
    })

    /** Reference-only: no translations are stored, so any target language other than the original is missing. */
    const textOf = (document: IndexedDocument, targetLanguage: string | undefined) =>
      isOriginal(targetLanguage)
        ? Effect.succeed(document.content)
        : Effect.fail(new TranslationNotFound({ targetLanguage: targetLanguage ?? "" }))

    const content = Effect.fn("Documents.content")(function* (
      project: string,
      id: string,
      request: {
        routing?: string | undefined
        offset?: string | undefined
        limit?: string | undefined
        targetLanguage?: string | undefined
      },
      caller: Caller
    ) {
      yield* requireGranted(project, caller)
      const text = yield* textOf(yield* find(project, id, request.routing), request.targetLanguage)
      const bounds = yield* sliceBounds(text.length, request.offset, request.limit)
      return slice(text, bounds, isOriginal(request.targetLanguage) ? "" : (request.targetLanguage ?? ""))
    })

    const searchContent = Effect.fn("Documents.searchContent")(function* (
      project: string,
      id: string,
      request: { routing?: string | undefined; query?: string | undefined; targetLanguage?: string | undefined },
      caller: Caller
    ) {
      yield* requireGranted(project, caller)
      const query = request.query
      if (query === undefined) return yield* new InvalidContentRequest({ reason: "query is required" })
      if (query === "") return yield* new EmptyContentQuery()
      const text = yield* textOf(yield* find(project, id, request.routing), request.targetLanguage)
      const offsets = occurrences(text, query)
      return { offsets, count: offsets.length, query, targetLanguage: request.targetLanguage ?? null }
    })

    /** The indexed document (its text included), for the caller. */
    const get = Effect.fn("Documents.get")(function* (project: string, id: string, routing: string | undefined, caller: Caller) {
      yield* requireGranted(project, caller)
      return yield* find(project, id, routing)
    })

    return { source, content, searchContent, get }
  })
}) {}
