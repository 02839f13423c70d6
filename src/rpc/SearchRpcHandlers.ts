import { Effect, Option, Stream } from "effect"
import { errorReason, hitsOf, searchBody } from "../domain/batch-search/BatchQuery.ts"
import { checkAccess, checkBodyIndices } from "../domain/project/SearchAccess.ts"
import { maxResultWindow, SearchBackend } from "../search/SearchBackend.ts"
import type { RpcCallers } from "./Caller.ts"
import { SearchFailed, SearchRpcs } from "./SearchRpcs.ts"

const plainQuery = { phraseMatches: false, fuzziness: 0, fileTypes: [], paths: [], tags: [] }

const totalOf = (body: unknown) => {
  const hits = typeof body === "object" && body !== null && "hits" in body ? body.hits : undefined
  const total = typeof hits === "object" && hits !== null && "total" in hits ? hits.total : undefined
  const value = typeof total === "object" && total !== null && "value" in total ? total.value : total
  return typeof value === "number" ? value : 0
}

/** Searches through the SearchBackend, after the search proxy's access checks. */
export const searchRpcHandlers = (callers: RpcCallers) =>
  SearchRpcs.toLayer(
    Effect.gen(function* () {
      const backend = yield* SearchBackend

      const forward = (projects: ReadonlyArray<string>, endpoint: string, body: unknown) =>
        Effect.gen(function* () {
          const path = `${projects.join(",")}/${endpoint}`
          yield* checkAccess(path, "POST")
          yield* checkBodyIndices(body)
          return yield* backend.handle({ method: "POST", path, query: new URLSearchParams(), body })
        })

      const page = (query: string, projects: ReadonlyArray<string>, from: number, size: number) =>
        Effect.gen(function* () {
          const answer = yield* forward(projects, "_search", { ...searchBody(query, plainQuery, from, size), track_total_hits: true })
          if (answer.status !== 200) return yield* new SearchFailed({ status: answer.status, reason: errorReason(answer.body) })
          return { total: totalOf(answer.body), hits: hitsOf(answer.body) }
        })

      return {
        searchRaw: ({ projects, endpoint = "_search", body }, { headers }) => callers.asCaller(headers, forward(projects, endpoint, body)),
        searchDocuments: ({ query, projects, from = 0, size = 10 }, { headers }) =>
          from + size > maxResultWindow
            ? Effect.fail(new SearchFailed({ status: 400, reason: `from + size must be at most ${maxResultWindow}` }))
            : callers.asCaller(headers, page(query, projects, from, size)),
        // Each page is read when the client asks for more: a stream cancelled mid-way reads no further page.
        streamDocuments: ({ query, projects, pageSize = 100 }, { headers }) =>
          Stream.paginateEffect(0, (from) =>
            callers.asCaller(headers, page(query, projects, from, Math.min(pageSize, maxResultWindow - from))).pipe(
              Effect.map(({ hits }) => {
                const next = from + hits.length
                const more = hits.length === pageSize && next < maxResultWindow
                return [hits, more ? Option.some(next) : Option.none()] as const
              })
            )
          ).pipe(Stream.flattenIterables)
      }
    })
  )
