import { Effect } from "effect"
import { holdsNul, nulRefusal } from "../../db/Nul.ts"
import { HttpRequest } from "../../transport/Http.ts"
import { jsonTooDeep, tooDeepMessage } from "../../transport/JsonDepth.ts"
import { badRequest, bodyError, conflict, JsonApiError } from "./JsonApiError.ts"
import { toSnake } from "./Names.ts"

/** A relationship as sent: an identifier, null, or a list of identifiers (to-many). */
export type Linkage = { readonly type: string; readonly id: string } | null | ReadonlyArray<{ readonly type: string; readonly id: string }>

export interface RequestDocument {
  readonly id: string | undefined
  /** By snake_case name (camelCase and snake_case are both accepted on input). */
  readonly attributes: Readonly<Record<string, unknown>>
  readonly relationships: Readonly<Record<string, Linkage>>
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const snakeKeys = (value: unknown) =>
  isObject(value) ? Object.fromEntries(Object.entries(value).map(([name, item]) => [toSnake(name), item])) : {}

/** Bodies must be `application/vnd.api+json`; media-type parameters (`; ext=bulk`) are tolerated. */
export const requireJsonApiMediaType = Effect.gen(function* () {
  const request = yield* HttpRequest
  const contentType = request.headers["content-type"] ?? ""
  if (contentType.split(";")[0]!.trim().toLowerCase() !== "application/vnd.api+json") {
    return yield* new JsonApiError({
      status: 415,
      detail: `Unsupported media type "${contentType}" in request.`,
      pointer: "/data",
      code: "unsupported_media_type"
    })
  }
})

const identifier = (name: string, value: unknown) => {
  if (!isObject(value) || typeof value.type !== "string" || (typeof value.id !== "string" && typeof value.id !== "number")) {
    return Effect.fail(badRequest("Invalid resource identifier object: missing 'id' or 'type' key", `/data/relationships/${name}`))
  }
  return Effect.succeed({ type: value.type, id: String(value.id) })
}

const linkage = (name: string, value: unknown): Effect.Effect<Linkage, JsonApiError> => {
  if (!isObject(value) || !("data" in value))
    return Effect.fail(badRequest("Invalid relationship: a `data` member is required", `/data/relationships/${name}`))
  if (value.data === null) return Effect.succeed(null)
  if (Array.isArray(value.data)) return Effect.forEach(value.data, (item) => identifier(name, item))
  return identifier(name, value.data)
}

/**
 * Reads a JSON:API request document for the collection of `type`: checks the media type, the primary data,
 * its type (409 when it differs) and, when `urlId` is given (PATCH/PUT), the presence and value of its id.
 */
export const readDocument = (type: string, urlId?: string) =>
  Effect.gen(function* () {
    yield* requireJsonApiMediaType
    const request = yield* HttpRequest
    const text = (yield* request.body.pipe(Effect.mapError(bodyError))).toString("utf8")
    if (jsonTooDeep(text)) return yield* badRequest(tooDeepMessage, "/data", "parse_error")
    const parsed = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) => badRequest(`JSON parse error - ${error instanceof Error ? error.message : String(error)}`, "/data", "parse_error")
    })
    if (holdsNul(parsed)) return yield* badRequest(nulRefusal, "/data", "parse_error")
    const data = isObject(parsed) ? parsed.data : undefined
    if (!isObject(data)) return yield* badRequest("Received document does not contain primary data")
    if (data.type !== type) {
      return yield* conflict(
        `The resource object's type (${String(data.type)}) is not the type that constitute the collection represented by the endpoint (${type}).`
      )
    }
    const id = typeof data.id === "string" || typeof data.id === "number" ? String(data.id) : undefined
    if (urlId !== undefined) {
      if (id === undefined) return yield* badRequest("The resource identifier object must contain an 'id' member")
      if (id !== urlId) return yield* conflict(`The resource object's id (${id}) does not match url's lookup id (${urlId})`)
    }
    return yield* resourceData(data)
  })

/** The attributes and relationships of a resource object (a request's primary data, or a bulk payload's). */
export const resourceData = (data: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const id = typeof data.id === "string" || typeof data.id === "number" ? String(data.id) : undefined
    const relationships: Record<string, Linkage> = {}
    for (const [name, value] of Object.entries(snakeKeys(data.relationships))) relationships[name] = yield* linkage(name, value)
    return { id, attributes: snakeKeys(data.attributes), relationships } satisfies RequestDocument
  })
