import { Effect, Schema } from "effect"
import { HistoryEventInput, HistoryList, parseEventId, parseHistoryQuery, parseType } from "../../domain/history/History.ts"
import { UserHistory } from "../../domain/history/UserHistory.ts"
import { LegacyProject } from "../../domain/project/Project.ts"
import { Projects } from "../../domain/project/Projects.ts"
import { allowMethods, empty, json, jsonBody, queryParam } from "../../transport/Http.ts"
import { projectCaller } from "../../domain/project/Access.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { publicRoute, route } from "../Router.ts"

const tag = "users"
const historyPath = "/api/users/me/history"

const SessionInformation = Schema.Struct({
  uid: Schema.String,
  groups_by_applications: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }),
  projects: Schema.Array(LegacyProject)
}).annotations({ identifier: "SessionInformation" })

/** The user's details without null values or a password, as the reference prints them. */
const publicDetails = (details: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(details).filter(([name, value]) => value !== null && name !== "password"))

const me = Effect.gen(function* () {
  const current = yield* CurrentUser
  const projects = yield* (yield* Projects).granted(yield* projectCaller)
  return json({ uid: current.user.id, ...publicDetails(current.user.details), projects })
})

const historyQuery = Effect.gen(function* () {
  const names = ["type", "from", "size", "sort", "desc", "projects"] as const
  const parameters = Object.fromEntries(
    yield* Effect.forEach(names, (name) => Effect.map(queryParam(name), (value) => [name, value] as const))
  )
  return yield* parseHistoryQuery(parameters)
})

export const userRoutes = [
  route("GET", "/api/users/me", me, {
    summary: "The caller's details (uid, groups_by_applications) and a projects array with every granted project",
    tag,
    response: SessionInformation
  }),
  publicRoute("OPTIONS", historyPath, Effect.succeed(allowMethods("OPTIONS, GET, PUT, DELETE")), {
    summary: "Methods allowed on the history",
    tag
  }),
  route(
    "GET",
    historyPath,
    Effect.gen(function* () {
      return json(yield* (yield* UserHistory).list(yield* projectCaller, yield* historyQuery))
    }),
    {
      summary:
        "The caller's events of one type, newest first by default; size 0 (the default) lists all from `from`; 400 for an unknown type " +
        "or sort, or a from/size that is not a non-negative integer",
      tag,
      query: {
        type: "document or search (required, any case)",
        from: "offset, default 0",
        size: "number of events, default 0 = all",
        sort: "modificationDate (default), creationDate, name, uri, id, type, userId, or the column names modification_date, creation_date, user_id",
        desc: "descending unless false",
        projects: "comma-separated project ids: only events linked to one of them"
      },
      response: HistoryList
    }
  ),
  route(
    "PUT",
    historyPath,
    Effect.gen(function* () {
      const event = yield* jsonBody(HistoryEventInput)
      yield* (yield* UserHistory).record(yield* projectCaller, event)
      return empty()
    }),
    {
      summary:
        "Adds an event, or refreshes the modificationDate of the caller's event of the same uri; 200; 400 for a body of the wrong " +
        "shape (type SEARCH or DOCUMENT, projectIds an array of at most 1000), 403 when a project id is not the caller's",
      tag,
      requestBody: HistoryEventInput
    }
  ),
  route(
    "DELETE",
    historyPath,
    Effect.gen(function* () {
      const type = yield* parseType(yield* queryParam("type"))
      yield* (yield* UserHistory).removeType(yield* projectCaller, type)
      return empty(204)
    }),
    {
      summary: "Deletes the caller's events of a type; 204, also when there were none; 400 for an unknown type",
      tag,
      query: { type: "document or search" },
      responseStatus: 204
    }
  ),
  publicRoute("OPTIONS", `${historyPath}/event`, Effect.succeed(allowMethods("OPTIONS, DELETE")), {
    summary: "Methods allowed on a history event",
    tag
  }),
  route(
    "DELETE",
    `${historyPath}/event`,
    Effect.gen(function* () {
      const id = yield* parseEventId(yield* queryParam("id"))
      yield* (yield* UserHistory).removeEvent(yield* projectCaller, id)
      return empty(204)
    }),
    {
      summary: "Deletes one of the caller's events; 204, also when unknown; 400 for an id that is not an integer",
      tag,
      query: { id: "event id" },
      responseStatus: 204
    }
  )
]
