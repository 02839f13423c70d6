import type { Headers } from "@effect/platform"
import { Effect } from "effect"
import { DocumentMarks } from "../domain/document/DocumentMarks.ts"
import { type Caller, Documents } from "../domain/document/Documents.ts"
import { type ProjectEditor, projectCaller } from "../domain/project/Access.ts"
import { CurrentUser } from "../domain/user/CurrentUser.ts"
import type { RpcCallers } from "./Caller.ts"
import { DocumentRpcs } from "./DocumentRpcs.ts"

/** A number as the legacy content endpoint reads its query parameters. */
const parameter = (value: number | undefined) => (value === undefined ? undefined : String(value))

/** The document RPCs over the services of the legacy document endpoints; database failures are defects. */
export const documentRpcHandlers = (callers: RpcCallers) =>
  DocumentRpcs.toLayer(
    Effect.gen(function* () {
      const documents = yield* Documents
      const marks = yield* DocumentMarks
      // RPC requests come over HTTP or a WebSocket; the source address only matters to downloads, which RPC has not.
      const reader = Effect.flatMap(CurrentUser, (current) =>
        Effect.map(current.grantedProjects, (grantedProjects): Caller => ({ grantedProjects, address: "" }))
      )
      const asReader = <A, E, R>(headers: Headers.Headers, read: (caller: Caller) => Effect.Effect<A, E, R>) =>
        callers.asCaller(headers, Effect.flatMap(reader, read))
      const asMarker = <A, E, R>(headers: Headers.Headers, mark: (caller: ProjectEditor) => Effect.Effect<A, E, R>) =>
        callers.asCaller(headers, Effect.flatMap(projectCaller, mark))

      return {
        getDocument: ({ project, id, routing }, { headers }) =>
          asReader(headers, (caller) => documents.get(project, id, routing, caller)).pipe(
            Effect.map(({ content: _content, ...document }) => ({ ...document, project }))
          ),
        getContent: ({ project, id, routing, offset, limit, targetLanguage }, { headers }) =>
          asReader(headers, (caller) =>
            documents.content(project, id, { routing, offset: parameter(offset), limit: parameter(limit), targetLanguage }, caller)
          ),
        searchContent: ({ project, id, routing, query, targetLanguage }, { headers }) =>
          asReader(headers, (caller) => documents.searchContent(project, id, { routing, query, targetLanguage }, caller)),
        tagDocument: ({ project, id, routing, tags }, { headers }) =>
          asMarker(headers, (caller) => marks.tagDocument(project, id, routing, tags, caller)),
        untagDocument: ({ project, id, routing, tags }, { headers }) =>
          asMarker(headers, (caller) => marks.untagDocument(project, id, routing, tags, caller)),
        tagDocuments: ({ project, ids, tags }, { headers }) => asMarker(headers, (caller) => marks.tag(project, ids, tags, caller)),
        untagDocuments: ({ project, ids, tags }, { headers }) => asMarker(headers, (caller) => marks.untag(project, ids, tags, caller)),
        listTags: ({ project, id }, { headers }) => asMarker(headers, (caller) => marks.tagsOf(project, id, caller)),
        taggedDocuments: ({ project, tags }, { headers }) => asMarker(headers, (caller) => marks.taggedWith(project, tags, caller)),
        star: ({ project, ids }, { headers }) => asMarker(headers, (caller) => marks.star(project, ids, caller)),
        unstar: ({ project, ids }, { headers }) => asMarker(headers, (caller) => marks.unstar(project, ids, caller)),
        starredDocuments: ({ project }, { headers }) => asMarker(headers, (caller) => marks.starredIds(project, caller)),
        markRead: ({ project, ids }, { headers }) => asMarker(headers, (caller) => marks.recommend(project, ids, caller)),
        unmarkRead: ({ project, ids }, { headers }) => asMarker(headers, (caller) => marks.unrecommend(project, ids, caller)),
        readBy: ({ project, users }, { headers }) => asMarker(headers, (caller) => marks.recommendedBy(project, users, caller)),
        readers: ({ project, ids }, { headers }) => asMarker(headers, (caller) => marks.recommenders(project, ids, caller))
      }
    })
  )
