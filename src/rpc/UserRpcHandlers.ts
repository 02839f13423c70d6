import { Effect } from "effect"
import { parseHistoryQuery } from "../domain/history/History.ts"
import { UserHistory } from "../domain/history/UserHistory.ts"
import { Projects } from "../domain/project/Projects.ts"
import type { RpcCallers } from "./Caller.ts"
import { UserRpcs } from "./UserRpcs.ts"

/** The user RPCs over Projects and UserHistory, as GET /api/users/me and /api/users/me/history use them. */
export const userRpcHandlers = (callers: RpcCallers) =>
  UserRpcs.toLayer(
    Effect.gen(function* () {
      const projects = yield* Projects
      const history = yield* UserHistory
      return {
        currentUser: (_, { headers }) =>
          Effect.gen(function* () {
            const { current, editor } = yield* callers.caller(headers)
            return { user: current.user, isAdmin: current.isAdmin, projects: yield* projects.granted(editor) }
          }),
        userHistory: ({ type, from, size, sort, descending, projects: filter }, { headers }) =>
          Effect.gen(function* () {
            const { editor } = yield* callers.caller(headers)
            // The HTTP endpoint's parser, so that both refuse the same sorts.
            const query = yield* parseHistoryQuery({
              type,
              from: from === undefined ? undefined : String(from),
              size: size === undefined ? undefined : String(size),
              sort,
              desc: descending === false ? "false" : undefined,
              projects: filter?.join(",")
            })
            return yield* history.list(editor, query)
          }),
        recordHistoryEvent: (event, { headers }) => Effect.flatMap(callers.caller(headers), ({ editor }) => history.record(editor, event)),
        deleteHistory: ({ type }, { headers }) => Effect.flatMap(callers.caller(headers), ({ editor }) => history.removeType(editor, type)),
        deleteHistoryEvent: ({ id }, { headers }) =>
          Effect.flatMap(callers.caller(headers), ({ editor }) => history.removeEvent(editor, id))
      }
    })
  )
