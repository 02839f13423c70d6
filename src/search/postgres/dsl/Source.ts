import type { SourceFilter } from "./Ast.ts"

/**
 * `_source` filtering as ES does it: includes and excludes are globs over dotted paths; an include of a parent
 * keeps its whole subtree, an include of a child keeps the parent with that child only; objects inside arrays are
 * filtered one by one.
 */

const globToRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`
  )

interface CompiledFilter {
  readonly includes: ReadonlyArray<{ readonly glob: string; readonly regexp: RegExp }>
  readonly excludes: ReadonlyArray<RegExp>
}

const mayHoldMatch = (glob: string, path: string) => {
  const literal = glob.split("*")[0]!
  return `${path}.`.startsWith(literal) || literal.startsWith(`${path}.`)
}

type Json = unknown

const filterValue = (value: Json, path: string, filter: CompiledFilter, included: boolean): Json | undefined => {
  if (Array.isArray(value)) {
    const items = value.flatMap((item) => {
      if (typeof item !== "object" || item === null) return included ? [item] : []
      const filtered = filterValue(item, path, filter, included)
      return filtered === undefined ? [] : [filtered]
    })
    return included || items.length > 0 ? items : undefined
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, Json> = {}
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === "" ? key : `${path}.${key}`
      if (filter.excludes.some((exclude) => exclude.test(childPath))) continue
      const childIncluded = included || filter.includes.some((include) => include.regexp.test(childPath))
      if (!childIncluded && !filter.includes.some((include) => mayHoldMatch(include.glob, childPath))) continue
      const filtered = filterValue(child, childPath, filter, childIncluded)
      if (filtered !== undefined) out[key] = filtered
    }
    return included || Object.keys(out).length > 0 || path === "" ? out : undefined
  }
  return included ? value : undefined
}

/** A glob naming one field at the top of the source: no wildcard, no dot. */
const topLevelName = /^[^*.]+$/

export const filterSource = (source: Readonly<Record<string, Json>>, filter: SourceFilter): Json => {
  if (filter._tag === "None") return source
  const includes = filter.includes.filter((glob) => glob !== "")
  // The client's filter (everything but the content): such an exclude can only name a top-level field, so the source is
  // kept as it is without those fields, and nothing below them is walked.
  const excludes = filter.excludes.filter((glob) => glob !== "")
  if (includes.every((glob) => glob === "*") && excludes.every((glob) => topLevelName.test(glob))) {
    return Object.fromEntries(Object.entries(source).filter(([key, value]) => value !== undefined && !excludes.includes(key)))
  }
  const compiled: CompiledFilter = {
    includes: includes.map((glob) => ({ glob, regexp: globToRegExp(glob) })),
    excludes: excludes.map(globToRegExp)
  }
  return filterValue(source, "", compiled, includes.length === 0)
}

/** Whether a filtered source can contain `field` at all (the content is only read from the database then). */
export const sourceMayInclude = (filter: SourceFilter | false, field: string) => {
  if (filter === false) return false
  if (filter._tag === "None") return true
  if (filter.excludes.some((glob) => globToRegExp(glob).test(field))) return false
  return filter.includes.length === 0 || filter.includes.some((glob) => globToRegExp(glob).test(field) || mayHoldMatch(glob, field))
}
