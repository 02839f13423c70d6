import { Effect, Option } from "effect"
import { Settings } from "../../config/Settings.ts"
import { indicesNamedIn, isAllowedEndpoint, isContinuation } from "../../search/ProxyAccess.ts"
import type { BackendRequest } from "../../search/SearchBackend.ts"
import { BadRequest, Forbidden, NotFound } from "../RequestErrors.ts"
import { CurrentUser } from "../user/CurrentUser.ts"
import { SearchContinuationRepo } from "./SearchContinuationRepo.ts"

/**
 * Who may send which Elasticsearch request, whether through the search proxy (`/api/index/search/`) or the search
 * RPCs: the reference's access rules, tightened (issue 22).
 */

/** A list of index names, as the first segment of a path names them. */
export const indexList = /^[-a-zA-Z0-9_]+(,[-a-zA-Z0-9_]+)*$/

const segmentsOf = (path: string) => path.split("/").filter((segment) => segment !== "")

const isServerMode = Effect.map(Settings, (settings) => settings.mode === "SERVER")

/** 403 for an index outside the caller's projects in SERVER mode (LOCAL users may use every index). */
const requireGrantedIndices = (indices: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (!(yield* isServerMode)) return
    const granted = new Set(yield* (yield* CurrentUser).grantedProjects)
    const refused = indices.find((index) => !granted.has(index))
    if (refused !== undefined) return yield* new Forbidden({ message: `You don't have access to the index '${refused}'` })
  })

/** 403 unless every index a request body names (`_mget` docs, terms lookups) is one of the caller's projects. */
export const checkBodyIndices = (body: unknown) => requireGrantedIndices(indicesNamedIn(body))

/**
 * A path whose first segment is an index list of the caller's projects, then one of the allow-listed endpoints and
 * methods. Only continuations by id (scrolls, async search answers) name no index, and `checkContinuation` checks
 * theirs; a search without an index list would search every index of the cluster.
 */
export const checkAccess = (path: string, method: BackendRequest["method"]) =>
  Effect.gen(function* () {
    const segments = segmentsOf(path)
    if (isContinuation(segments, method)) return
    if (segments[0]?.startsWith("_")) return yield* new BadRequest({ message: `an index list of your projects is required: '${path}'` })
    if ((method !== "HEAD" && segments.length < 2) || segments.length === 0)
      return yield* new BadRequest({ message: `Invalid path: '${path}'` })
    if (!indexList.test(segments[0]!)) return yield* new BadRequest({ message: `Bad format for indices : '${segments[0]}'` })
    yield* requireGrantedIndices(segments[0]!.split(","))
    if (!isAllowedEndpoint(segments.slice(1), method)) return yield* new Forbidden({ message: `${method} is not allowed on '${path}'` })
  })

const stringField = (value: unknown, key: string) =>
  typeof value === "object" && value !== null && key in value && typeof (value as Record<string, unknown>)[key] === "string"
    ? ((value as Record<string, unknown>)[key] as string)
    : undefined

/**
 * Every id a continuation names: a scroll's in its body, its `source` parameter, its URL parameters or its path (the
 * backends differ on which wins when several are given, so all are checked); an async search's in its path.
 */
const continuationIds = (segments: ReadonlyArray<string>, query: URLSearchParams, bodies: ReadonlyArray<unknown>) => {
  const named =
    segments[0] === "_async_search"
      ? [segments[1]]
      : [...bodies.map((body) => stringField(body, "scroll_id")), ...query.getAll("scroll_id"), segments[2]]
  return [...new Set(named.filter((id): id is string => id !== undefined && id !== ""))]
}

/**
 * In SERVER mode a continuation is answered only for a caller granted every index of the search that opened it:
 * 404, as for an expired context, for an id the proxy did not give out; 403 when an index is not the caller's.
 * `bodies` are the request body and its `source` parameter. Answers the indices the request continues (undefined
 * when it is no continuation, or in LOCAL mode), for `rememberContinuation`.
 */
export const checkContinuation = (path: string, method: BackendRequest["method"], query: URLSearchParams, bodies: ReadonlyArray<unknown>) =>
  Effect.gen(function* () {
    const segments = segmentsOf(path)
    if (!isContinuation(segments, method) || !(yield* isServerMode)) return undefined
    const repo = yield* SearchContinuationRepo
    const continued = new Set<string>()
    for (const id of continuationIds(segments, query, bodies)) {
      const indices = yield* repo.indicesOf(id)
      if (Option.isNone(indices)) return yield* new NotFound({ message: `No search context found for id [${id}]` })
      yield* requireGrantedIndices(indices.value)
      for (const index of indices.value) continued.add(index)
    }
    return [...continued]
  })

/**
 * Keeps, in SERVER mode, the continuation id an answer gives out (`_scroll_id`, an async search's `id`) with the
 * indices of its search: those `checkContinuation` found for a continuation, those of the path otherwise.
 */
export const rememberContinuation = (path: string, continued: ReadonlyArray<string> | undefined, answer: unknown) =>
  Effect.gen(function* () {
    const segments = segmentsOf(path)
    const given = stringField(answer, "_scroll_id") ?? (segments.includes("_async_search") ? stringField(answer, "id") : undefined)
    if (given === undefined || !(yield* isServerMode)) return
    // In SERVER mode `continued` is undefined only for a search, whose path starts with its index list.
    const indices = continued ?? segments[0]!.split(",")
    if (indices.length > 0) yield* (yield* SearchContinuationRepo).remember(given, indices)
  })
