import { Effect } from "effect"
import type { FromBatchSearchRequest } from "./ReviewBridge.ts"
import { ReviewBridgeInvalid, ReviewBridgeNotFound } from "./ReviewBridgeErrors.ts"
import { type NewTask, ReviewBridgeRepo } from "./ReviewBridgeRepo.ts"

export type NewTaskFields = NewTask

/** Names and descriptions are varchar(100). */
const clip = (text: string) => text.slice(0, 100)

/**
 * The task a request creates: a review project and a choice group that exist, checkers that exist, rounds of at
 * least one (default: one per checker, so that every record can be finished), a name (default: the batch search's).
 */
export const checkNewTask = (request: FromBatchSearchRequest, searchName: string, creatorId: number) =>
  Effect.gen(function* () {
    const repo = yield* ReviewBridgeRepo
    if (request.project === undefined)
      return yield* new ReviewBridgeInvalid({ field: "project", reason: "a review project is required to create a task" })
    if (request.choiceGroup === undefined)
      return yield* new ReviewBridgeInvalid({ field: "choiceGroup", reason: "a choice group is required to create a task" })
    const name = request.name ?? clip(searchName)
    if (name.trim() === "" || name.length > 100)
      return yield* new ReviewBridgeInvalid({ field: "name", reason: "a task name has 1 to 100 characters" })
    const checkers = request.checkers ?? []
    const rounds = request.rounds ?? Math.max(1, checkers.length)
    if (rounds < 1) return yield* new ReviewBridgeInvalid({ field: "rounds", reason: "rounds is at least 1" })
    if ((yield* repo.missingIds("review_projects", [request.project])).length > 0) {
      return yield* new ReviewBridgeNotFound({ field: "project", reason: `no review project ${request.project}` })
    }
    if ((yield* repo.missingIds("review_choice_groups", [request.choiceGroup])).length > 0) {
      return yield* new ReviewBridgeNotFound({ field: "choiceGroup", reason: `no choice group ${request.choiceGroup}` })
    }
    const missing = yield* repo.missingIds("users", checkers)
    if (missing.length > 0) return yield* new ReviewBridgeNotFound({ field: "checkers", reason: `no user ${missing.join(", ")}` })
    return {
      name,
      description: clip(`Hits of the batch search ${searchName}`),
      projectId: request.project,
      creatorId,
      rounds,
      choiceGroupId: request.choiceGroup,
      checkers
    } satisfies NewTask
  })
