import type { Headers } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Chunk, Effect, Option, Stream } from "effect"
import { Settings } from "../config/Settings.ts"
import { checkRecordAccess, setRecordBookmark, setRecordLock } from "../domain/review/RecordMarks.ts"
import { inTransaction } from "../db/SqlFailure.ts"
import { ReviewNotFound, ReviewWriteForbidden } from "../domain/review/ReviewErrors.ts"
import { recordById, recordPage, reviewPage, taskRecordsVisible, visibleReview } from "../domain/review/ReviewLists.ts"
import type { ReviewChange } from "../domain/review/ReviewChange.ts"
import { changeReview, notYourReview } from "../domain/review/ReviewUpdate.ts"
import { callerReviewUser, type ReviewUser } from "../domain/review/ReviewUser.ts"
import type { RpcCallers } from "./Caller.ts"
import { ReviewRpcs } from "./ReviewRpcs.ts"

/** Rows with an id, read `pageSize` at a time after the last id sent. */
const pagedById = <A extends { readonly id: number }, E>(page: (afterId: number) => Effect.Effect<ReadonlyArray<A>, E>, pageSize: number) =>
  Stream.paginateChunkEffect(0, (afterId) =>
    Effect.map(page(afterId), (rows) => {
      const last = rows.at(-1)
      return [Chunk.fromIterable(rows), rows.length === pageSize && last !== undefined ? Option.some(last.id) : Option.none()] as const
    })
  )

/**
 * The review RPCs over the review domain, with the review API's rules: the same scopes, the same checks of a
 * review's update and of a record's lock, the same activity recorded. The domain dies on database failures.
 */
export const reviewRpcHandlers = (callers: RpcCallers) =>
  ReviewRpcs.toLayer(
    Effect.gen(function* () {
      const settings = yield* Settings
      const sql = yield* SqlClient.SqlClient

      /** The caller's users row; administrators are staff, as the review API's context makes them. */
      const reviewUserOf = (headers: Headers.Headers) =>
        Effect.gen(function* () {
          const { current } = yield* callers.caller(headers)
          const user = yield* callerReviewUser(current.user.id, current.isAdmin, settings.mode !== "SERVER")
          if (user === undefined) return yield* Effect.dieMessage(`authenticated user ${current.user.id} has no users row`)
          return user
        })

      const readRecord = (recordId: number, user: ReviewUser) =>
        Effect.flatMap(recordById(recordId, user), (record) =>
          record === undefined ? Effect.fail(new ReviewNotFound({ resource: "TaskRecord", id: recordId })) : Effect.succeed(record)
        )

      /** A lock or bookmark change by one of the record's reviewers while its task is OPEN, in one transaction. */
      const markRecord = <E>(
        recordId: number,
        headers: Headers.Headers,
        mark: (user: ReviewUser) => Effect.Effect<void, E, SqlClient.SqlClient>
      ) =>
        Effect.gen(function* () {
          const user = yield* reviewUserOf(headers)
          yield* readRecord(recordId, user)
          yield* inTransaction(Effect.zipRight(checkRecordAccess(recordId, user.id), mark(user)))
          return yield* readRecord(recordId, user)
        }).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      return {
        taskRecords: ({ taskId, pageSize }, { headers }) =>
          Effect.gen(function* () {
            const user = yield* reviewUserOf(headers)
            if (!(yield* taskRecordsVisible(taskId, user))) return yield* new ReviewNotFound({ resource: "Task", id: taskId })
            const size = pageSize ?? 200
            return pagedById(
              (afterId) => recordPage(taskId, user, afterId, size).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
              size
            )
          }).pipe(Effect.provideService(SqlClient.SqlClient, sql), Stream.unwrap),
        reviews: ({ pageSize, ...selection }, { headers }) =>
          Effect.gen(function* () {
            const user = yield* reviewUserOf(headers)
            const size = pageSize ?? 200
            return pagedById(
              (afterId) => reviewPage(selection, user, afterId, size).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
              size
            )
          }).pipe(Effect.provideService(SqlClient.SqlClient, sql), Stream.unwrap),
        chooseReview: ({ reviewId, choiceId, note, alternativeValue }, { headers }) =>
          Effect.gen(function* () {
            const user = yield* reviewUserOf(headers)
            const missing = new ReviewNotFound({ resource: "TaskRecordReview", id: reviewId })
            const visible = yield* visibleReview(reviewId, user)
            if (visible === undefined) return yield* missing
            if (visible.checkerId !== user.id) return yield* new ReviewWriteForbidden({ reason: notYourReview })
            const change: ReviewChange = {
              ...(choiceId === undefined ? {} : { choiceId }),
              ...(note === undefined ? {} : { note }),
              ...(alternativeValue === undefined ? {} : { alternativeValue })
            }
            yield* inTransaction(changeReview(user.id, reviewId, change))
            const saved = yield* visibleReview(reviewId, user)
            return saved ?? (yield* missing)
          }).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
        lockRecord: ({ recordId }, { headers }) => markRecord(recordId, headers, (user) => setRecordLock(recordId, user.id, true)),
        unlockRecord: ({ recordId }, { headers }) => markRecord(recordId, headers, (user) => setRecordLock(recordId, user.id, false)),
        bookmarkRecord: ({ recordId, bookmarked }, { headers }) =>
          markRecord(recordId, headers, (user) => setRecordBookmark(recordId, user.id, bookmarked))
      }
    })
  )
