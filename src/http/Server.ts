import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { Cause, Context, Effect, Exit, Runtime } from "effect"
import { Settings } from "../config/Settings.ts"
import { nulRefusal } from "../db/Nul.ts"
import { HttpRequest, type HttpRequestShape, type HttpResponse, json, noHeaders, statusOf } from "../transport/Http.ts"
import { BadRequest, PayloadTooLarge } from "../domain/RequestErrors.ts"
import { anonymousUser } from "./middleware/Auth.ts"
import { type Authentication, Authenticator, TooManyAttempts } from "../transport/Authentication.ts"
import { CurrentUser } from "../domain/user/CurrentUser.ts"
import { browserRefusal, mediaTypeRefusal, refusal } from "./middleware/BrowserGuard.ts"
import { writeResponse } from "../transport/Conventions.ts"
import type { Mount } from "../transport/Mount.ts"
import { defaultMaxBodyBytes, makeRouter, type Route } from "./Router.ts"

/** Where the server listens, once it does. */
export class HttpServerInfo extends Context.Tag("quarry/HttpServerInfo")<
  HttpServerInfo,
  { readonly port: number; readonly url: string }
>() {}

/**
 * The body, refused with 413 past `limit` bytes: at once when Content-Length says so, else as soon as the bytes read
 * pass it. The rest of a refused body is read and dropped rather than kept, so that the 413 still reaches the client.
 */
const readBody = (request: http.IncomingMessage, limit: number) =>
  new Promise<Buffer>((resolve, reject) => {
    const tooLarge = () => {
      reject(new PayloadTooLarge({ message: `request bodies are limited to ${limit} bytes here` }))
      request.removeAllListeners("data")
      request.resume()
    }
    if (Number(request.headers["content-length"] ?? 0) > limit) return tooLarge()
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) tooLarge()
      else chunks.push(chunk)
    }
    request.on("data", onData)
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", (error) => reject(new BadRequest({ message: `cannot read the request body: ${error.message}` })))
  })

const legacyErrorBody = (_status: number, message: string): unknown => ({ error: message })

/** An error answer in the shape of the route that failed (the legacy `{"error": message}` by default). */
const errorAnswer =
  (shape: Route<unknown>["errorBody"]) =>
  (status: number, message: string): HttpResponse =>
    json((shape ?? legacyErrorBody)(status, message), status)

const withHeaders =
  (headers: Readonly<Record<string, string>>) =>
  (response: HttpResponse): HttpResponse => ({
    ...response,
    headers: { ...headers, ...response.headers }
  })

const makeRequest = (
  incoming: http.IncomingMessage,
  method: string,
  path: string,
  url: string,
  queryStart: number,
  params: Readonly<Record<string, string>>,
  maxBodyBytes: number
): HttpRequestShape => {
  let body: Promise<Buffer> | undefined
  return {
    method,
    path,
    query: new URLSearchParams(queryStart < 0 ? "" : url.slice(queryStart + 1)),
    headers: incoming.headers,
    params,
    remoteAddress: incoming.socket.remoteAddress ?? "",
    body: Effect.tryPromise({
      try: () => (body ??= readBody(incoming, maxBodyBytes)),
      catch: (error) =>
        error instanceof PayloadTooLarge || error instanceof BadRequest ? error : new BadRequest({ message: String(error) })
    }),
    raw: incoming
  }
}

/**
 * The answer to a failure. `challenge` is false for scripts that handle a 401 themselves (they send
 * `X-Requested-With: XMLHttpRequest`, as the web page does): without `WWW-Authenticate` a browser shows its own
 * sign-in form instead of its modal Basic prompt.
 */
const failureResponse = (challenge: boolean, errorBody: ReturnType<typeof errorAnswer>) => (cause: Cause.Cause<unknown>) =>
  Effect.gen(function* () {
    const failure = Cause.failureOption(cause)
    if (failure._tag === "Some") {
      const error = failure.value
      const status = statusOf(error)
      const message = error instanceof Error ? error.message : ""
      if (status >= 500) yield* Effect.logError("request failed", cause)
      const response = errorBody(status, message)
      if (error instanceof TooManyAttempts) return { ...response, headers: { "Retry-After": String(error.retryAfterSeconds) } }
      return status === 401 && challenge ? { ...response, headers: { "WWW-Authenticate": 'Basic realm="datashare"' } } : response
    }
    yield* Effect.logError("request defect", cause)
    return errorBody(500, "internal error")
  })

/**
 * Serves the route table on node:http. The request path is kept lean on purpose (no per-request router
 * layers or tracing spans): it matches a route, authenticates, runs the handler in the application's runtime
 * and writes the result with the legacy conventions.
 */
export const serveHttp = <R>(routes: ReadonlyArray<Route<R>>, mounts: ReadonlyArray<Mount> = []) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const authenticator = yield* Authenticator
    const runtime = yield* Effect.runtime<R>()
    const router = makeRouter(routes)
    const runCallback = Runtime.runCallback(runtime)

    const handle = (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => {
      const url = incoming.url ?? "/"
      const queryStart = url.indexOf("?")
      const path = queryStart < 0 ? url : url.slice(0, queryStart)
      const write = (response: HttpResponse) => writeResponse(incoming, outgoing, response, settings.cors)
      const refused = browserRefusal(incoming, path, settings)
      if (refused !== undefined) return write(refused)
      const mount = mounts.find((candidate) => path.startsWith(candidate.prefix))
      if (mount !== undefined) return mount.handle(incoming, outgoing)
      const method = incoming.method ?? "GET"
      const match = router.match(method, path)
      const errorBody = errorAnswer(match._tag === "Found" ? match.route.errorBody : undefined)
      // A percent-encoded NUL in the path or the query would reach a statement, whose text cannot hold it.
      if (url.includes("%00")) return write(errorBody(400, nulRefusal))
      if (match._tag !== "Found") {
        return write(match._tag === "NotFound" ? errorBody(404, "Not found") : errorBody(405, `${method} is not allowed on ${path}`))
      }
      const unsupported = mediaTypeRefusal(incoming, path, match.route.bodyTypes ?? "json")
      if (unsupported !== undefined) return write(unsupported)
      const request = makeRequest(incoming, method, path, url, queryStart, match.params, match.route.maxBodyBytes ?? defaultMaxBodyBytes)
      const handler = match.route.handler
      const failed = failureResponse(incoming.headers["x-requested-with"] !== "XMLHttpRequest", errorBody)
      // A handler interrupted because its client went away has no one to answer.
      const finish = (exit: Exit.Exit<HttpResponse>) =>
        Exit.isInterrupted(exit) ? undefined : write(Exit.isSuccess(exit) ? exit.value : errorBody(500, "internal error"))
      // Two fibers rather than Effect.provide: the handler's fiber starts with the request and the caller in its
      // context, which costs one context copy, where providing them inside a running fiber cost about a third of
      // the whole request (measured by `npm run bench -- http`).
      const answer = (authentication: Authentication) => {
        const context = Context.add(Context.add(runtime.context, HttpRequest, request), CurrentUser, authentication.user ?? anonymousUser)
        const answered = Effect.catchAllCause(handler, failed)
        const cancel = Runtime.runCallback(Runtime.make({ context, runtimeFlags: runtime.runtimeFlags, fiberRefs: runtime.fiberRefs }))(
          authentication.headers === noHeaders ? answered : Effect.map(answered, withHeaders(authentication.headers)),
          { onExit: finish }
        )
        // The connection closed before the answer was written: the client went away, so the handler stops, and with
        // it the statements it runs (a search left running would hold a connection until its deadline). Once the
        // handler has answered, interrupting it does nothing, so streamed answers are not affected.
        outgoing.once("close", () => {
          if (!outgoing.writableFinished) cancel()
        })
      }
      runCallback(authenticator.authenticate(request, match.route.public === true), {
        onExit: (exit) => {
          if (Exit.isSuccess(exit)) return answer(exit.value)
          const failure = Cause.failureOption(exit.cause)
          if (failure._tag === "Some" && failure.value instanceof TooManyAttempts) {
            const headers = { "Retry-After": String(failure.value.retryAfterSeconds) }
            return write(refusal(path, 429, failure.value.message, "throttled", headers))
          }
          runCallback(failed(exit.cause), { onExit: finish })
        }
      })
    }

    const server = http.createServer({ keepAliveTimeout: 5_000 }, handle)
    // Upgrades go to the mount of their path; elsewhere the connection is closed, as node:http does without a listener.
    // Upgraded connections are no longer the server's to close: they are tracked to be cut at shutdown.
    const upgraded = new Set<Duplex>()
    server.on("upgrade", (incoming: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (incoming.url ?? "/").split("?")[0] ?? "/"
      const mount = mounts.find((candidate) => path.startsWith(candidate.prefix))
      if (mount?.upgrade === undefined) return socket.destroy()
      upgraded.add(socket)
      socket.once("close", () => upgraded.delete(socket))
      mount.upgrade(incoming, socket, head)
    })
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(settings.tcpListenPort, settings.bind, () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeIdleConnections()
          // In-flight requests get a moment to finish; then the remaining connections are cut.
          setTimeout(() => {
            server.closeAllConnections()
            for (const socket of upgraded) socket.destroy()
          }, 2_000).unref()
        })
    )
    const port = (server.address() as AddressInfo).port
    const host = settings.bind.includes(":") ? `[${settings.bind}]` : settings.bind
    const info = { port, url: `http://${host}:${port}` }
    yield* Effect.log(`listening on ${info.url}`)
    return info
  })
