import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { eventTypes, HistoryEventInput, HistoryList, InvalidHistoryRequest } from "../domain/history/History.ts"
import { LegacyProject } from "../domain/project/Project.ts"
import { ProjectForbidden } from "../domain/project/ProjectErrors.ts"
import { LegacyUser } from "../domain/user/User.ts"

/** The caller: its user record, whether it is an administrator, and every project granted to it. */
export const CurrentUserInfo = Schema.Struct({ user: LegacyUser, isAdmin: Schema.Boolean, projects: Schema.Array(LegacyProject) })

const EventType = Schema.Literal(...eventTypes)

/** The user API for internal tools, served at `/rpc`: who the caller is, and its history of visited documents and searches. */
export class UserRpcs extends RpcGroup.make(
  Rpc.make("currentUser", { success: CurrentUserInfo }),
  /**
   * The caller's events of one type, newest first by default; size 0 (the default) lists all from `from`. `sort`
   * is modificationDate (default), creationDate, name, uri, id, type or userId; `projects` keeps events linked to one of them.
   */
  Rpc.make("userHistory", {
    payload: {
      type: EventType,
      from: Schema.optional(Schema.NonNegativeInt),
      size: Schema.optional(Schema.NonNegativeInt),
      sort: Schema.optional(Schema.String),
      descending: Schema.optional(Schema.Boolean),
      projects: Schema.optional(Schema.Array(Schema.String))
    },
    success: HistoryList,
    error: InvalidHistoryRequest
  }),
  /** Adds an event, or refreshes the caller's event of the same uri; its projects must be the caller's. */
  Rpc.make("recordHistoryEvent", { payload: HistoryEventInput, error: Schema.Union(InvalidHistoryRequest, ProjectForbidden) }),
  Rpc.make("deleteHistory", { payload: { type: EventType } }),
  Rpc.make("deleteHistoryEvent", { payload: { id: Schema.NonNegativeInt } })
) {}
