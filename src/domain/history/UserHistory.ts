import { Effect } from "effect"
import { inTransaction } from "../../db/SqlFailure.ts"
import { userFromId } from "../document/Marks.ts"
import { type ProjectCaller, requireGranted } from "../project/Access.ts"
import { legacyDate } from "../project/Project.ts"
import { type EventType, type HistoryEventInput, type HistoryList, type HistoryQuery, InvalidHistoryRequest } from "./History.ts"
import { HistoryRepo } from "./HistoryRepo.ts"

const maxProjectIds = 1_000
const maxUriLength = 65_536

/** The caller's visited documents and searches. */
export class UserHistory extends Effect.Service<UserHistory>()("quarry/UserHistory", {
  effect: Effect.gen(function* () {
    const repo = yield* HistoryRepo

    const list = Effect.fn("UserHistory.list")(function* (caller: ProjectCaller, query: HistoryQuery) {
      const { items, total } = yield* repo.list(caller.login, query)
      return {
        items: items.map((row) => ({
          id: row.id,
          user: userFromId(row.userId),
          creationDate: legacyDate(row.creationDate),
          modificationDate: legacyDate(row.modificationDate),
          type: row.type,
          name: row.name,
          uri: row.uri
        })),
        total
      } satisfies HistoryList
    })

    /** Adds the event, or refreshes the caller's event of the same uri; its projects must be the caller's. */
    const record = Effect.fn("UserHistory.record")(function* (caller: ProjectCaller, event: HistoryEventInput) {
      if (event.uri === "" || event.uri.length > maxUriLength)
        return yield* new InvalidHistoryRequest({ reason: `uri is 1 to ${maxUriLength} characters` })
      if (event.projectIds.length > maxProjectIds)
        return yield* new InvalidHistoryRequest({ reason: `at most ${maxProjectIds} projectIds` })
      const projects = [...new Set(event.projectIds)]
      yield* Effect.forEach(projects, (project) => requireGranted(project, caller), { discard: true })
      yield* inTransaction(
        Effect.flatMap(repo.upsert(caller.login, event.type, event.name ?? null, event.uri), (id) => repo.link(id, projects))
      )
    })

    const removeType = Effect.fn("UserHistory.removeType")(function* (caller: ProjectCaller, type: EventType) {
      yield* repo.removeType(caller.login, type)
    })

    const removeEvent = Effect.fn("UserHistory.removeEvent")(function* (caller: ProjectCaller, id: number) {
      yield* repo.removeEvent(caller.login, id)
    })

    return { list, record, removeType, removeEvent }
  })
}) {}
