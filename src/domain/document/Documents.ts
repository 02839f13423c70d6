import { stat } from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { DocumentIndex, type IndexedDocument } from "../../search/DocumentIndex.ts"
import { maskAllows, occurrences, slice, sliceBounds } from "./Content.ts"
import { DocumentForbidden, DocumentNotFound, InvalidContentRequest, SourceMissing, TranslationNotFound } from "./DocumentErrors.ts"

/** Who asks, as the access rules of legacy-api-reference §2.5 and §4.2 need it. */
export interface Caller {
  readonly grantedProjects: ReadonlyArray<string>
  readonly address: string
}

/** What `documents/src` serves: a file from disk, or the extracted text of an embedded document. */
export type DocumentSource =
  | { readonly _tag: "File"; readonly path: string; readonly size: number; readonly contentType: string; readonly fileName: string }
  | { readonly _tag: "Text"; readonly text: string; readonly fileName: string }

/** Blank, or `original` for searches, means the original text. */
const isOriginal = (targetLanguage: string | undefined) =>
  targetLanguage === undefined || targetLanguage.trim() === "" || targetLanguage === "original"

/** Reading a document's source, text slices and occurrences, with the project access checks of the reference. */
export class Documents extends Effect.Service<Documents>()("quarry/Documents", {
  effect: Effect.gen(function* () {
    const index = yield* DocumentIndex
    const sql = yield* SqlClient.SqlClient

    const requireGranted = (project: string, caller: Caller) =>
      caller.grantedProjects.includes(project)
        ? Effect.void
        : Effect.fail(new DocumentForbidden({ project, reason: `no access to project ${project}` }))

    /** Without routing the id alone finds the document, as a get on the reference's single-shard index does. */
    const find = (project: string, id: string, routing: string | undefined) =>
      index.get(project, id, routing === undefined || routing === "" ? undefined : routing).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(new DocumentNotFound({ project, id })), onSome: Effect.succeed }))
      )

    /** Only projects with a row have a mask; the others allow every address. */
    const requireAllowedAddress = (project: string, caller: Caller) =>
      sql<{ mask: string | null }>`SELECT allow_from_mask AS mask FROM projects WHERE id = ${project}`.pipe(
        Effect.flatMap((rows) =>
          rows.every((row) => maskAllows(row.mask, caller.address))
            ? Effect.void
            : Effect.fail(new DocumentForbidden({ project, reason: "Download not allowed" }))
        )
      )

    /**
     * The original file of a top-level document. An embedded document's bytes exist only inside its root file and
     * the Extractor does not hand them out, so its extracted text is served instead, as text/plain.
     */
    const source = Effect.fn("Documents.source")(function* (project: string, id: string, routing: string | undefined, caller: Caller) {
      yield* requireGranted(project, caller)
      yield* requireAllowedAddress(project, caller)
      const document = yield* find(project, id, routing)
      if (document.parentDocument !== null) {
        return { _tag: "Text", text: document.content, fileName: `${document.id.slice(0, 10)}.txt` } satisfies DocumentSource
      }
      const info = yield* Effect.tryPromise(() => stat(document.path)).pipe(
        Effect.filterOrFail((info) => info.isFile()),
        Effect.mapError(() => new SourceMissing({ path: document.path }))
      )
      const contentType = document.contentType === "unknown" ? "application/octet-stream" : document.contentType
      return { _tag: "File", path: document.path, size: info.size, contentType, fileName: path.basename(document.path) } satisfies DocumentSource
    })

    /** Reference-only: no translations are stored, so any target language other than the original is missing. */
    const textOf = (document: IndexedDocument, targetLanguage: string | undefined) =>
      isOriginal(targetLanguage) ? Effect.succeed(document.content) : Effect.fail(new TranslationNotFound({ targetLanguage: targetLanguage ?? "" }))

    const content = Effect.fn("Documents.content")(function* (
      project: string,
      id: string,
      request: { routing?: string | undefined; offset?: string | undefined; limit?: string | undefined; targetLanguage?: string | undefined },
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
      const query = request.query ?? ""
      if (query === "") return yield* new InvalidContentRequest({ reason: "query is required" })
      const text = yield* textOf(yield* find(project, id, request.routing), request.targetLanguage)
      const offsets = occurrences(text, query)
      return { offsets, count: offsets.length, query, targetLanguage: request.targetLanguage ?? null }
    })

    return { source, content, searchContent }
  })
}) {}
