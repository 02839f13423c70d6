import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { ReviewFieldInvalid, ReviewNotFound, ReviewWriteForbidden } from "../domain/review/ReviewErrors.ts"

const Id = Schema.Int.pipe(Schema.positive())
const PageSize = Schema.optional(Schema.Int.pipe(Schema.between(1, 1_000)))

/** A record of a review task; `bookmarked` is the caller's bookmark. */
export const ReviewRecord = Schema.Struct({
  id: Schema.Number,
  taskId: Schema.Number,
  uid: Schema.NullOr(Schema.String),
  originalValue: Schema.NullOr(Schema.String),
  predictedValue: Schema.NullOr(Schema.String),
  metadata: Schema.Unknown,
  status: Schema.Literal("UNASSIGNED", "ASSIGNED", "DONE"),
  rounds: Schema.Number,
  priority: Schema.Number,
  locked: Schema.Boolean,
  lockedById: Schema.NullOr(Schema.Number),
  bookmarked: Schema.Boolean
})

/** A checker's review of a record in one round. */
export const Review = Schema.Struct({
  id: Schema.Number,
  taskId: Schema.Number,
  taskRecordId: Schema.Number,
  checkerId: Schema.NullOr(Schema.Number),
  round: Schema.Number,
  status: Schema.Literal("PENDING", "DONE"),
  choiceId: Schema.NullOr(Schema.Number),
  note: Schema.NullOr(Schema.String),
  alternativeValue: Schema.NullOr(Schema.String)
})

const RecordWriteError = Schema.Union(ReviewNotFound, ReviewWriteForbidden, ReviewFieldInvalid)

/**
 * The review platform for internal tools, served at `/rpc`, with the review API's rules: staff see every task
 * and review; checkers see the tasks of their projects and list their own reviews; only a review's checker
 * updates it, while its task is OPEN and its record unlocked; only a record's reviewers lock it.
 */
export class ReviewRpcs extends RpcGroup.make(
  /** The records of a task, in id order, `pageSize` (default 200) read at a time. */
  Rpc.make("taskRecords", { payload: { taskId: Id, pageSize: PageSize }, success: ReviewRecord, error: ReviewNotFound, stream: true }),
  /** Reviews in id order: the caller's own, or for staff everyone's (narrowed to one checker with `checkerId`). */
  Rpc.make("reviews", {
    payload: {
      taskId: Schema.optional(Id),
      taskRecordId: Schema.optional(Id),
      checkerId: Schema.optional(Id),
      status: Schema.optional(Schema.Literal("PENDING", "DONE")),
      pageSize: PageSize
    },
    success: Review,
    stream: true
  }),
  /**
   * The caller's review changes: `choiceId` picks a choice of the task's choice group (null cancels it), `note`
   * (at most 100 characters) and `alternativeValue` are written; an absent member is left as it is.
   */
  Rpc.make("chooseReview", {
    payload: {
      reviewId: Id,
      choiceId: Schema.optional(Schema.NullOr(Id)),
      note: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(100)))),
      alternativeValue: Schema.optional(Schema.NullOr(Schema.String))
    },
    success: Review,
    error: RecordWriteError
  }),
  /** Locks a record for the caller, one of its reviewers, while its task is OPEN. */
  Rpc.make("lockRecord", { payload: { recordId: Id }, success: ReviewRecord, error: RecordWriteError }),
  /** Unlocks a record the caller locked. */
  Rpc.make("unlockRecord", { payload: { recordId: Id }, success: ReviewRecord, error: RecordWriteError }),
  Rpc.make("bookmarkRecord", { payload: { recordId: Id, bookmarked: Schema.Boolean }, success: ReviewRecord, error: RecordWriteError })
) {}
