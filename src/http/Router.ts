import type { Effect, Schema } from "effect"
import { type CurrentUser } from "../domain/user/CurrentUser.ts"
import type { BodyTypes } from "./middleware/BrowserGuard.ts"
import { type HttpRequest, type HttpResponse } from "../transport/Http.ts"

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS"

/** What /api/openapi says about a route; schemas are rendered to JSON Schema. */
export interface RouteDoc {
  readonly summary: string
  readonly tag: string
  readonly query?: Readonly<Record<string, string>>
  readonly requestBody?: Schema.Schema.Any
  readonly response?: Schema.Schema.Any
  readonly responseStatus?: number
  readonly responseContentType?: string
}

/**
 * One endpoint. Paths use the reference's syntax: `:name` matches one segment, `:name:` captures the rest of
 * the path including slashes (without the leading slash).
 */
export interface Route<R = never> {
  readonly method: Method
  readonly path: string
  /** Public routes are answered without credentials in SERVER mode (/, /settings, /version, sign-in). */
  readonly public?: boolean
  readonly handler: Effect.Effect<HttpResponse, unknown, R | HttpRequest | CurrentUser>
  readonly doc?: RouteDoc
  /** Largest request body read, in bytes (413 beyond); `defaultMaxBodyBytes` when absent. */
  readonly maxBodyBytes?: number
  /**
   * How a write's body may be sent. "json" (the default): bodies sent as text/plain or as a form are refused with 415,
   * since any page can send those to another site without a preflight. "jsonOrText": JSON that the reference's front
   * end sends as text/plain. "own": the handler reads another type (forms, uploads, raw text) or
   * checks the type itself (the review API).
   */
  readonly bodyTypes?: BodyTypes
  /** The body of the route's error answers (the search proxy's are Elasticsearch's); `{"error": message}` when absent. */
  readonly errorBody?: (status: number, message: string) => unknown
}

/** Bodies of ordinary requests (JSON options, sign-in forms): small, so that no caller can make the server hold much. */
export const defaultMaxBodyBytes = 64 * 1024
/**
 * Bodies that carry lists of document ids, Elasticsearch queries naming them or many review updates: 10 000 ids of
 * 96 characters (the documented limit of a batch tag) are about 1 MB.
 */
export const listMaxBodyBytes = 2 * 1024 ** 2
/** Uploads: batch search CSV files, review record CSV files and media zips. */
export const uploadMaxBodyBytes = 256 * 1024 ** 2

/** The route with its own body limit. */
export const withBodyLimit =
  (maxBodyBytes: number) =>
  <T extends { readonly maxBodyBytes?: number }>(route: T): T => ({ ...route, maxBodyBytes })

export const route = <R>(
  method: Method,
  path: string,
  handler: Effect.Effect<HttpResponse, unknown, R | HttpRequest | CurrentUser>,
  doc?: RouteDoc
): Route<R> => (doc === undefined ? { method, path, handler } : { method, path, handler, doc })

export const publicRoute = <R>(
  method: Method,
  path: string,
  handler: Effect.Effect<HttpResponse, unknown, R | HttpRequest | CurrentUser>,
  doc?: RouteDoc
): Route<R> => ({ ...route(method, path, handler, doc), public: true })

interface CompiledRoute<R> {
  readonly route: Route<R>
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const compile = <R>(route: Route<R>): CompiledRoute<R> => {
  const names: Array<string> = []
  // Order matters: the rest-of-path form `:name:` must be recognised before the one-segment form `:name`.
  const source = route.path
    .split(/(:[A-Za-z]+:?)/)
    .map((part) => {
      const parameter = /^:([A-Za-z]+)(:?)$/.exec(part)
      if (parameter === null) return escapeRegExp(part)
      names.push(parameter[1]!)
      return parameter[2] === ":" ? "(.*)" : "([^/]+)"
    })
    .join("")
  return { route, pattern: new RegExp(`^${source}/?$`), names }
}

const decode = (value: string) => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

export type Match<R> =
  | { readonly _tag: "Found"; readonly route: Route<R>; readonly params: Record<string, string> }
  | { readonly _tag: "MethodNotAllowed" }
  | { readonly _tag: "NotFound" }

/**
 * Matches requests against the route table: exact paths through a map, parameterised ones in declaration order.
 * A HEAD request falls back to the GET route of the same path.
 */
export const makeRouter = <R>(routes: ReadonlyArray<Route<R>>) => {
  const exact = new Map<string, Route<R>>()
  const patterns: Array<CompiledRoute<R>> = []
  for (const route of routes) {
    if (route.path.includes(":")) patterns.push(compile(route))
    else exact.set(`${route.method} ${route.path}`, route)
  }
  const find = (method: string, path: string): Match<R> | undefined => {
    const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path
    const direct = exact.get(`${method} ${trimmed}`) ?? exact.get(`${method} ${path}`)
    if (direct !== undefined) return { _tag: "Found", route: direct, params: {} }
    for (const compiled of patterns) {
      if (compiled.route.method !== method) continue
      const match = compiled.pattern.exec(path)
      if (match === null) continue
      const params: Record<string, string> = {}
      compiled.names.forEach((name, index) => (params[name] = decode(match[index + 1] ?? "")))
      return { _tag: "Found", route: compiled.route, params }
    }
    return undefined
  }
  const pathExists = (path: string) =>
    exact.has(`GET ${path}`) || routes.some((route) => route.path === path) || patterns.some((compiled) => compiled.pattern.test(path))
  return {
    routes,
    match: (method: string, path: string): Match<R> =>
      find(method, path) ??
      (method === "HEAD" ? find("GET", path) : undefined) ??
      (pathExists(path) ? { _tag: "MethodNotAllowed" } : { _tag: "NotFound" })
  }
}

export type Router<R> = ReturnType<typeof makeRouter<R>>
