/** The shapes of a review change, shared by the rules that apply it (ReviewUpdate.ts) and the activity it records. */

/** What a checker asks to change on a review; an absent member leaves the field unchanged (even with PUT). */
export interface ReviewChange {
  /** A choice id, or null to cancel the choice. */
  readonly choiceId?: number | null
  readonly note?: string | null
  readonly alternativeValue?: string | null
}

/** A review with what its rules look at, read under a row lock of its record and itself. */
export interface ReviewState {
  readonly id: number
  readonly checkerId: number | null
  readonly recordId: number
  readonly taskId: number
  readonly taskStatus: string
  readonly recordLocked: boolean
  readonly choiceGroupId: number | null
  readonly choiceId: number | null
  readonly note: string | null
  readonly noteCreatedAt: Date | null
  readonly alternativeValue: string | null
}

/** What an applied change did, for the activity stream and mentions. */
export interface ReviewOutcome {
  readonly review: ReviewState
  readonly change: ReviewChange
}
