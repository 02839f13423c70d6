import { Effect } from "effect"
import type { Filter, Fragment, ReadContext, ResourceDefinition, Row } from "./Resource.ts"
import {
  booleanOf,
  checkedTasks,
  integerExact,
  integerIn,
  isoText,
  isoTimestamp,
  relationExact,
  textContains,
  textIContains,
  textIExact,
  textIn,
  textIRegex
} from "./Filters.ts"

/** `__isnull`: true/false/1/0; anything else leaves the filter off. */
const isNull =
  (column: string): Filter =>
  (value, { sql }) => {
    const flag = booleanOf(value)
    return Effect.succeed(
      flag === undefined ? sql`TRUE` : flag ? sql`${sql.literal(column)} IS NULL` : sql`${sql.literal(column)} IS NOT NULL`
    )
  }

/** The record flags filter on `0` or `1` only, as in the reference; other values leave the filter off. */
const zeroOrOne =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.succeed(value === "0" || value === "1" ? sql`${sql.literal(column)} = ${value === "1"}` : sql`TRUE`)

/** A filter on the other reviews of the same record (EXISTS, so that no review is listed twice). */
const siblings =
  (filter: Filter): Filter =>
  (value, context) =>
    Effect.map(
      filter(value, context),
      (clause) => context.sql`EXISTS (SELECT 1 FROM review_task_record_reviews s WHERE s.task_record_id = rec.id AND ${clause})`
    )

const textFilters = (name: string, column: string, regex: boolean): Readonly<Record<string, Filter>> => ({
  [name]: (value, { sql }) => Effect.succeed(sql`${sql.literal(column)} = ${value}`),
  [`${name}__icontains`]: textIContains(column),
  [`${name}__iexact`]: textIExact(column),
  [`${name}__contains`]: textContains(column),
  [`${name}__in`]: textIn(column),
  ...(regex ? { [`${name}__iregex`]: textIRegex(column) } : {})
})

const bookmarkedBy: Filter = (value, context) =>
  Effect.map(
    integerIn("k.user_id")(value, context),
    (clause) => context.sql`EXISTS (SELECT 1 FROM review_task_record_bookmarks k WHERE k.task_record_id = rec.id AND ${clause})`
  )

const pending = "EXISTS (SELECT 1 FROM review_task_record_reviews p WHERE p.task_record_id = rec.id AND p.status = 'PENDING')"
const done = "EXISTS (SELECT 1 FROM review_task_record_reviews d WHERE d.task_record_id = rec.id AND d.status = 'DONE')"

const filters: Readonly<Record<string, Filter>> = {
  checker: relationExact("r.checker_id", "users", "checker"),
  checker__in: integerIn("r.checker_id"),
  checker__isnull: isNull("r.checker_id"),
  choice: relationExact("r.choice_id", "review_choices", "choice"),
  choice__in: integerIn("r.choice_id"),
  choice__isnull: isNull("r.choice_id"),
  ...textFilters("alternative_value", "r.alternative_value", true),
  task_record__priority: integerExact("rec.priority"),
  task_record__priority__in: integerIn("rec.priority"),
  task_record__rounds: integerExact("rec.rounds"),
  task_record__rounds__in: integerIn("rec.rounds"),
  task_record__task: relationExact("rec.task_id", "review_tasks", "taskRecord.task"),
  task_record__task__in: integerIn("rec.task_id"),
  ...textFilters("task_record__predicted_value", "rec.predicted_value", true),
  ...textFilters("task_record__original_value", "rec.original_value", false),
  task_record__reviews__checker: siblings(integerExact("s.checker_id")),
  task_record__reviews__checker__in: siblings(integerIn("s.checker_id")),
  task_record__reviews__choice: siblings(integerExact("s.choice_id")),
  task_record__reviews__choice__in: siblings(integerIn("s.choice_id")),
  task_record__reviews__id: siblings(integerExact("s.id")),
  task_record__reviews__id__in: siblings(integerIn("s.id")),
  task_record__locked: zeroOrOne("rec.locked"),
  task_record__has_notes: zeroOrOne("rec.has_notes"),
  task_record__has_disagreements: zeroOrOne("rec.has_disagreements"),
  task_record__all_rounds_reviewed: (value, { sql }) =>
    Effect.succeed(value === "1" ? sql`rec.status = 'DONE'` : value === "0" ? sql`rec.status = 'ASSIGNED'` : sql`TRUE`),
  task_record__bookmarked_by: bookmarkedBy,
  // The evident intent of the reference's broken filter: 0 = the record waits for a review, 1 = fully reviewed.
  task_record__reviewed: (value, { sql }) =>
    Effect.succeed(value === "0" ? sql.literal(pending) : value === "1" ? sql.literal(`${done} AND NOT ${pending}`) : sql`TRUE`)
}

/** `meta.countBy` over the whole filtered list: reviews per task, then per choice (null for pending ones). */
const countBy = (context: ReadContext, where: Fragment) =>
  Effect.gen(function* () {
    const { sql } = context
    const from = sql.literal(reviewBase.from)
    const tasks = yield* sql<{ taskId: number; count: number }>`
      SELECT rec.task_id AS "taskId", count(*)::int AS count FROM ${from} WHERE ${where} GROUP BY rec.task_id ORDER BY rec.task_id`
    const choices = yield* sql<{ choiceId: number | null; count: number }>`
      SELECT r.choice_id AS "choiceId", count(*)::int AS count FROM ${from} WHERE ${where} GROUP BY r.choice_id ORDER BY r.choice_id NULLS FIRST`
    return { countBy: [...tasks, ...choices] }
  })

/** What the full and the flat (history) forms of a review share. */
const reviewBase = {
  type: "TaskRecordReview",
  selfPath: "task-record-reviews",
  from: "review_task_record_reviews r JOIN review_task_records rec ON rec.id = r.task_record_id",
  columns: ({ sql }: ReadContext) =>
    sql.literal(`r.id, r.status, r.note, ${isoTimestamp("r.note_created_at", "noteCreatedAt")}, ${isoTimestamp("r.note_updated_at", "noteUpdatedAt")},
      r.alternative_value AS "alternativeValue", r.choice_id AS "choiceId", rec.task_id AS "taskId", r.task_record_id AS "taskRecordId",
      r.checker_id AS "checkerId", r.round`),
  defaultOrder: "r.id DESC",
  paginated: true
} as const

export const reviewDefinition: ResourceDefinition = {
  ...reviewBase,
  key: "TaskRecordReview",
  attributes: (row: Row) => ({
    status: row.status,
    note: row.note,
    noteCreatedAt: isoText(row.noteCreatedAt),
    noteUpdatedAt: isoText(row.noteUpdatedAt),
    alternativeValue: row.alternativeValue,
    choiceId: row.choiceId,
    taskId: String(row.taskId)
  }),
  toOne: {
    checker: { resource: "User", id: (row) => row.checkerId as number | null },
    choice: { resource: "Choice", id: (row) => row.choiceId as number | null },
    taskRecord: { resource: "TaskRecord", id: (row) => row.taskRecordId as number }
  },
  toMany: {
    history: {
      resource: "TaskRecordReviewHistory",
      pairs: ({ sql }, ids) =>
        sql<{ owner: number; id: number }>`
          SELECT o.id AS owner, h.id FROM review_task_record_reviews o
          JOIN review_task_record_reviews h ON h.task_record_id = o.task_record_id
          WHERE o.id = ANY(${ids}::int[]) ORDER BY h.id`
    }
  },
  defaultInclude: ["checker", "choice", "taskRecord", "taskRecord.medias", "history"],
  includable: [
    "checker",
    "choice",
    "taskRecord",
    "taskRecord.medias",
    "taskRecord.task",
    "taskRecord.task.choiceGroup",
    "taskRecord.task.choiceGroup.choices",
    "history"
  ],
  filters,
  sorts: {
    task_record__id: "rec.id",
    task_record__original_value: "rec.original_value",
    task_record__predicted_value: "rec.predicted_value",
    task_record__priority: "rec.priority"
  },
  search: ["rec.original_value", "rec.predicted_value"],
  // Reviews of records in tasks one checks (any checker's); staff see every review.
  scope: (context) => (context.user.isStaff ? context.sql`TRUE` : context.sql`rec.task_id IN ${checkedTasks(context)}`),
  listMeta: countBy
}

/** Reviews as a review's `history` includes them: flat, with record and task ids as strings and no history. */
export const reviewHistoryDefinition: ResourceDefinition = {
  ...reviewBase,
  key: "TaskRecordReviewHistory",
  attributes: (row: Row) => ({
    status: row.status,
    note: row.note,
    noteCreatedAt: isoText(row.noteCreatedAt),
    noteUpdatedAt: isoText(row.noteUpdatedAt),
    taskId: String(row.taskId),
    taskRecordId: String(row.taskRecordId),
    alternativeValue: row.alternativeValue
  }),
  toOne: {
    checker: { resource: "User", id: (row) => row.checkerId as number | null },
    choice: { resource: "Choice", id: (row) => row.choiceId as number | null }
  }
}
