import { Cause, Effect } from "effect"
import { Settings } from "../../config/Settings.ts"
import { readContextOf } from "../../domain/review/resources/Rows.ts"
import { callerReviewUser } from "../../domain/review/ReviewUser.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { HttpRequest, type HttpRequestShape, type HttpResponse, statusOf } from "../../transport/Http.ts"
import { type Method, publicRoute, type Route } from "../Router.ts"
import { errorsDocument, forbidden, invalidCredentials, JsonApiError, methodNotAllowed, notAuthenticated } from "./JsonApiError.ts"
import { ValidationFailed } from "./Validation.ts"

export const jsonApiContentType = "application/vnd.api+json"

export const document = (value: unknown, status = 200): HttpResponse => ({
  status,
  headers: {},
  body: { _tag: "Json", value, contentType: jsonApiContentType }
})

export const noContent: HttpResponse = { status: 204, headers: {}, body: { _tag: "Empty" } }

/** Basic credentials that did not sign anyone in (the authenticator lets them through on the review API's public routes). */
const basicCredentialsSent = (request: HttpRequestShape) => /^basic\s/i.test(request.headers.authorization ?? "")

/** The caller as the review API sees it; anonymous callers (and unknown logins) get 403, as in the reference. */
export const readContext = Effect.gen(function* () {
  const current = yield* CurrentUser
  const request = yield* HttpRequest
  const settings = yield* Settings
  if (current.user.id === "") return yield* basicCredentialsSent(request) ? invalidCredentials() : notAuthenticated()
  const user = yield* callerReviewUser(current.user.id, current.isAdmin, settings.mode !== "SERVER")
  if (user === undefined) return yield* notAuthenticated()
  const host = request.headers.host ?? `${settings.bind}:${settings.tcpListenPort}`
  return yield* readContextOf(user, `http://${host}`)
})

/** Staff only (content management): 403 for everyone else. */
export const staffContext = Effect.flatMap(readContext, (context) =>
  context.user.isStaff ? Effect.succeed(context) : Effect.fail(forbidden())
)

const renderFailure = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function* () {
    const failure = Cause.failureOption(cause)
    if (failure._tag === "Some") {
      const error = failure.value
      if (error instanceof JsonApiError) return document(errorsDocument([error]), error.status)
      if (error instanceof ValidationFailed) return document(errorsDocument(error.errors), 400)
      const status = statusOf(error)
      if (status >= 500) yield* Effect.logError("review request failed", cause)
      const detail = status >= 500 ? "A server error occurred." : error instanceof Error ? error.message : "error"
      return document(
        errorsDocument([new JsonApiError({ status, detail, pointer: "/data", code: status >= 500 ? "error" : "invalid" })]),
        status
      )
    }
    yield* Effect.logError("review request defect", cause)
    return document(
      errorsDocument([new JsonApiError({ status: 500, detail: "A server error occurred.", pointer: "/data", code: "error" })]),
      500
    )
  })

type Handler<R> = Route<R>["handler"]

/**
 * A review API route: errors become JSON:API error documents. Routes are public to the authenticator so that a
 * missing or wrong credential reaches the handler, which answers 403 as the reference does instead of 401.
 */
export const jsonApiRoute = <R>(method: Method, path: string, handler: Handler<R>, summary: string): Route<R> => ({
  ...publicRoute(method, path, Effect.catchAllCause(handler, renderFailure), { summary, tag: "review" }),
  // Documents must be application/vnd.api+json (answered 415 in the JSON:API shape by the handler); uploads are multipart.
  bodyTypes: "own"
})

const allMethods: ReadonlyArray<Method> = ["GET", "POST", "PUT", "PATCH", "DELETE"]

/** Adds, for every path of the group, a JSON:API 405 for the methods it does not serve. */
export const withMethodNotAllowed = <R>(routes: ReadonlyArray<Route<R>>): ReadonlyArray<Route<R>> => {
  const paths = [...new Set(routes.map((route) => route.path))]
  const missing = paths.flatMap((path) =>
    allMethods
      .filter((method) => !routes.some((route) => route.path === path && route.method === method))
      .map((method) => jsonApiRoute<R>(method, path, Effect.fail(methodNotAllowed(method)), `${method} is not allowed here`))
  )
  return [...routes, ...missing]
}
