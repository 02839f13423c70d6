import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { bodyJson, request, TestServer } from "../helpers/server.ts"
import { addUser, basic, cookiePair } from "../helpers/users.ts"

export const jsonApi = "application/vnd.api+json"

/** A signed-in caller of the review API: its session cookie and users.id. */
export interface Caller {
  readonly login: string
  readonly id: number
  readonly cookie: string
}

export const runSql = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), server.context)).pipe(Effect.orDie)

/** Creates a user, signs in once with Basic and keeps the session cookie (password checks are slow on purpose). */
export const signIn = (login: string, options: { readonly admin?: boolean } = {}) =>
  Effect.gen(function* () {
    yield* addUser(login, "pw", options)
    const response = yield* request("/api/v1/users/me/", { headers: { authorization: basic(login, "pw") } })
    const body = (yield* bodyJson(response)) as { data: { id: string } }
    return { login, id: Number(body.data.id), cookie: cookiePair(response.headers.get("set-cookie")) } satisfies Caller
  })

export interface Answer {
  readonly status: number
  readonly contentType: string | null
  // The JSON:API documents tests read are loosely shaped; they are checked field by field.
  readonly body: Record<string, unknown> & { data?: unknown; errors?: ReadonlyArray<Record<string, unknown>> }
}

/** A request to the review API as `caller` (anonymous when undefined); bodies are sent as JSON:API unless told. */
export const api = (
  caller: Caller | undefined,
  method: string,
  path: string,
  body?: unknown,
  contentType: string = jsonApi
) =>
  Effect.gen(function* () {
    const headers: Record<string, string> = {}
    if (caller !== undefined) headers.cookie = caller.cookie
    if (body !== undefined) headers["content-type"] = contentType
    const response = yield* request(path, { method, headers, ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }) })
    const text = yield* Effect.promise(() => response.text())
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: text === "" ? {} : (JSON.parse(text) as Answer["body"])
    } satisfies Answer
  })

/** The data of a collection document as a list of resource objects. */
export const items = (answer: Answer) => answer.body.data as ReadonlyArray<{ type: string; id: string; attributes?: Record<string, unknown>; relationships?: Record<string, { data: unknown; meta?: unknown }> }>

export const resource = (answer: Answer) => answer.body.data as { type: string; id: string; attributes: Record<string, unknown>; relationships: Record<string, { data: unknown; meta?: unknown }>; links?: { self: string } }

export const firstError = (answer: Answer) => answer.body.errors?.[0] as { status: string; detail: string; source?: { pointer: string }; code: string }
