import { Effect } from "effect"
import { Settings } from "../../config/Settings.ts"
import { indicesNamedIn, isAllowedEndpoint, isContinuation } from "../../search/ProxyAccess.ts"
import type { BackendRequest } from "../../search/SearchBackend.ts"
import { BadRequest, Forbidden } from "../RequestErrors.ts"
import { CurrentUser } from "../user/CurrentUser.ts"

/**
 * Who may send which Elasticsearch request, whether through the search proxy (`/api/index/search/`) or the search
 * RPCs: the reference's access rules, tightened (issue 22).
 */

/** A list of index names, as the first segment of a path names them. */
export const indexList = /^[-a-zA-Z0-9_]+(,[-a-zA-Z0-9_]+)*$/

/** 403 for an index outside the caller's projects in SERVER mode (LOCAL users may use every index). */
const requireGrantedIndices = (indices: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if ((yield* Settings).mode !== "SERVER") return
    const granted = new Set(yield* (yield* CurrentUser).grantedProjects)
    const refused = indices.find((index) => !granted.has(index))
    if (refused !== undefined) return yield* new Forbidden({ message: `You don't have access to the index '${refused}'` })
  })

/** 403 unless every index a request body names (`_mget` docs, terms lookups) is one of the caller's projects. */
export const checkBodyIndices = (body: unknown) => requireGrantedIndices(indicesNamedIn(body))

/**
 * A path whose first segment is an index list of the caller's projects, then one of the allow-listed endpoints and
 * methods. Only continuations by id (scrolls, async search answers) name no index: a search without an index list
 * would search every index of the cluster.
 */
export const checkAccess = (path: string, method: BackendRequest["method"]) =>
  Effect.gen(function* () {
    const segments = path.split("/").filter((segment) => segment !== "")
    if (isContinuation(segments, method)) return
    if (segments[0]?.startsWith("_")) return yield* new BadRequest({ message: `an index list of your projects is required: '${path}'` })
    if ((method !== "HEAD" && segments.length < 2) || segments.length === 0)
      return yield* new BadRequest({ message: `Invalid path: '${path}'` })
    if (!indexList.test(segments[0]!)) return yield* new BadRequest({ message: `Bad format for indices : '${segments[0]}'` })
    yield* requireGrantedIndices(segments[0]!.split(","))
    if (!isAllowedEndpoint(segments.slice(1), method)) return yield* new Forbidden({ message: `${method} is not allowed on '${path}'` })
  })
