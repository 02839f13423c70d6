/**
 * What the search proxy lets through to the backend (issue 22): an allow-list of endpoints and methods after the
 * index list, continuations by id, and the indices a request body names. Pure rules; IndexProxyHttp applies them.
 */

type Method = "GET" | "POST" | "HEAD"

/**
 * Requests that continue an earlier search by its id and name no index: a scroll's next page, an async search's
 * answer. The caller is checked against the indices of the search that issued the id (SearchAccess).
 */
export const isContinuation = (segments: ReadonlyArray<string>, method: Method) =>
  (segments[0] === "_search" && segments[1] === "scroll" && segments.length <= 3 && method !== "HEAD") ||
  (segments[0] === "_async_search" && segments.length === 2 && method === "GET")

/** The endpoints under an index list that the proxy passes, with their methods; everything else is refused. */
export const isAllowedEndpoint = (rest: ReadonlyArray<string>, method: Method) => {
  const [first, second, third] = rest
  const searchOrGet = method === "GET" || method === "POST"
  switch (rest.length) {
    case 0:
      return method === "HEAD"
    case 1:
      return searchOrGet && (first === "_search" || first === "_count" || first === "_async_search" || first === "_mget")
    case 2:
      return (
        (searchOrGet && (first === "doc" || first === "_doc") && second === "_search") ||
        (method === "GET" && (first === "_doc" || first === "_source"))
      )
    case 3:
      return method === "GET" && first === "_mapping" && second === "field" && third !== undefined
    default:
      return false
  }
}

/** Keys under which a request body names an index: `_mget` docs, terms lookups, more_like_this items, indexed shapes. */
const indexKeys = new Set(["_index", "index"])

/** Every index a JSON body names under an index key, as a string or a list of strings. */
export const indicesNamedIn = (value: unknown): ReadonlyArray<string> => {
  const found: Array<string> = []
  // Iterative: bodies are depth-checked before parsing, but the walk need not rely on it.
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const current = pending.pop()
    if (Array.isArray(current)) pending.push(...current)
    else if (typeof current === "object" && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        if (indexKeys.has(key) && typeof child === "string") found.push(...child.split(","))
        else if (indexKeys.has(key) && Array.isArray(child)) found.push(...child.filter((item): item is string => typeof item === "string"))
        pending.push(child)
      }
    }
  }
  return found
}
