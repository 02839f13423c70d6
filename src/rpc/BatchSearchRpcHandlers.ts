import { Effect, Metric, Stream } from "effect"
import { BatchSearches } from "../domain/batch-search/BatchSearches.ts"
import type { Viewer } from "../domain/batch-search/BatchSearchRepo.ts"
import { requireGranted } from "../domain/project/Access.ts"
import { Tasks } from "../domain/task/Tasks.ts"
import { BatchSearchRpcs } from "./BatchSearchRpcs.ts"
import { type RpcCaller, type RpcCallers } from "./Caller.ts"

/** Results streams being served; a stream the client cancels leaves this count at once. */
export const openResultStreams = Metric.gauge("quarry_rpc_batch_search_result_streams")

const viewerOf = ({ editor }: RpcCaller): Viewer => ({ userId: editor.login, projects: editor.grantedProjects })

/** The batch-search RPCs over the BatchSearches service, with the access rules of the legacy endpoints. */
export const batchSearchRpcHandlers = (callers: RpcCallers) =>
  BatchSearchRpcs.toLayer(
    Effect.gen(function* () {
      const batchSearches = yield* BatchSearches
      const tasks = yield* Tasks
      return {
        createBatchSearch: ({ projects, queries, ...options }, { headers }) =>
          Effect.gen(function* () {
            const { editor } = yield* callers.caller(headers)
            // As POST /api/batch/search/:projects: every project must be one of the caller's, administrators too.
            yield* Effect.forEach(projects, (project) => requireGranted(project, editor), { discard: true })
            return yield* batchSearches.createFromQueries(
              projects,
              {
                name: options.name,
                description: options.description,
                published: options.published ?? false,
                phraseMatches: options.phraseMatches ?? false,
                fuzziness: options.fuzziness ?? 0,
                fileTypes: options.fileTypes ?? [],
                paths: options.paths ?? [],
                tags: options.tags ?? []
              },
              queries,
              editor.login
            )
          }),
        listBatchSearches: (_, { headers }) => Effect.flatMap(callers.caller(headers), (caller) => batchSearches.list(viewerOf(caller))),
        filterBatchSearches: (filter, { headers }) =>
          Effect.flatMap(callers.caller(headers), (caller) => batchSearches.filter(viewerOf(caller), filter)),
        getBatchSearch: ({ uuid, withQueries }, { headers }) =>
          Effect.flatMap(callers.caller(headers), (caller) => batchSearches.get(uuid, withQueries ?? false, viewerOf(caller))),
        batchSearchResults: ({ uuid, pageSize, follow, ...selection }, { headers }) =>
          Effect.flatMap(callers.caller(headers), (caller) =>
            batchSearches.resultStream(uuid, selection, viewerOf(caller), { pageSize: pageSize ?? 500, follow: follow ?? false })
          ).pipe(Stream.unwrap, (results) =>
            Stream.acquireRelease(Metric.increment(openResultStreams), () => Metric.incrementBy(openResultStreams, -1)).pipe(
              Stream.flatMap(() => results)
            )
          ),
        copyBatchSearch: ({ uuid, ...changes }, { headers }) =>
          Effect.flatMap(callers.caller(headers), (caller) => batchSearches.copy(uuid, changes, viewerOf(caller))),
        publishBatchSearch: ({ uuid, published }, { headers }) =>
          Effect.flatMap(callers.caller(headers), (caller) => batchSearches.publish(uuid, published, viewerOf(caller))),
        stopBatchSearch: ({ uuid }, { headers }) => Effect.flatMap(callers.caller(headers), ({ editor }) => tasks.stop(editor.login, uuid)),
        deleteBatchSearch: ({ uuid }, { headers }) =>
          Effect.flatMap(callers.caller(headers), (caller) => batchSearches.remove(viewerOf(caller), uuid)).pipe(
            Effect.map((deleted) => deleted > 0)
          )
      }
    })
  )
