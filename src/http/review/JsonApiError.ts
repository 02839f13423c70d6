import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * Every failure of the review API: rendered as a JSON:API errors document with its status (as a string),
 * `source.pointer` (absent when `pointer` is null) and the framework-style machine `code` clients know.
 */
export class JsonApiError extends Schema.TaggedError<JsonApiError>()(
  "JsonApiError",
  {
    status: Schema.Number,
    detail: Schema.String,
    pointer: Schema.NullOr(Schema.String),
    code: Schema.String
  },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.detail
  }
}

/** A request body that could not be read: 413 past the route's size limit, 400 otherwise. */
export const bodyError = (error: { readonly _tag: string; readonly message: string }) =>
  error._tag === "PayloadTooLarge"
    ? new JsonApiError({ status: 413, detail: error.message, pointer: null, code: "payload_too_large" })
    : badRequest(error.message, "/data", "parse_error")

export const badRequest = (detail: string, pointer: string | null = "/data", code = "invalid") =>
  new JsonApiError({ status: 400, detail, pointer, code })

export const notFound = (detail = "Not found.", pointer: string | null = "/data") =>
  new JsonApiError({ status: 404, detail, pointer, code: "not_found" })

export const forbidden = (detail = "You do not have permission to perform this action.") =>
  new JsonApiError({ status: 403, detail, pointer: "/data", code: "permission_denied" })

export const notAuthenticated = () =>
  new JsonApiError({ status: 403, detail: "Authentication credentials were not provided.", pointer: "/data", code: "not_authenticated" })

/** Wrong HTTP Basic credentials, answered as the reference's authentication does. */
export const invalidCredentials = () =>
  new JsonApiError({ status: 403, detail: "Invalid username/password.", pointer: "/data", code: "authentication_failed" })

export const conflict = (detail: string) => new JsonApiError({ status: 409, detail, pointer: "/data", code: "error" })

export const methodNotAllowed = (method: string) =>
  new JsonApiError({ status: 405, detail: `Method "${method}" not allowed.`, pointer: "/data", code: "method_not_allowed" })

export const invalidPage = () => notFound("Invalid page.")

/** The errors document of one or more errors, sorted by pointer as the reference does. */
export const errorsDocument = (errors: ReadonlyArray<JsonApiError>) => ({
  errors: [...errors]
    .sort((a, b) => (a.pointer ?? "").localeCompare(b.pointer ?? ""))
    .map((error) => ({
      detail: error.detail,
      status: String(error.status),
      ...(error.pointer === null ? {} : { source: { pointer: error.pointer } }),
      code: error.code
    }))
})
