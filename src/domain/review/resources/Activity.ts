import { Effect } from "effect"
import { InvalidFilter } from "../ReviewErrors.ts"
import type { Filter, ReadContext, ResourceDefinition, ResourceKey, Row } from "./Resource.ts"
import { checkedTasks, integerExact, integerIn, invalidChoice, isoText, isoTimestamp, relationExact, textExact, textIn } from "./Filters.ts"

/** The definition that renders each polymorphic target type (reviews in their flat form). */
const definitionOfType: Readonly<Record<string, ResourceKey>> = {
  User: "User",
  Task: "Task",
  TaskRecord: "TaskRecord",
  TaskRecordReview: "TaskRecordReviewHistory",
  Choice: "Choice",
  Tip: "Tip",
  ActionAggregate: "ActionAggregate"
}

/** A to-one relationship whose type is stored in the row; targets of other types are shown as null. */
const polymorphic = (typeColumn: string, idColumn: string) => ({
  // Only a fallback: `resourceOf` names the definition of each row's target.
  resource: "User" as const,
  resourceOf: (row: Row) => definitionOfType[row[typeColumn] as string] ?? "User",
  type: (row: Row) => row[typeColumn] as string,
  id: (row: Row) => (definitionOfType[row[typeColumn] as string] === undefined ? null : (row[idColumn] as number | null))
})

/** Public actions where the user is the actor or the target: the user page's activity. */
export const actionsOfUser = ({ sql }: ReadContext, userId: number) =>
  sql`r.public AND (r.actor_id = ${userId} OR (r.target_type = 'User' AND r.target_id = ${userId}))`

/** Public actions whose target or action object is the record or one of its reviews. */
export const actionsAboutRecord = ({ sql }: ReadContext, recordId: number) => {
  const reviews = sql`(SELECT v.id FROM review_task_record_reviews v WHERE v.task_record_id = ${recordId})`
  const about = (type: string, idColumn: string) =>
    sql`(${sql.literal(type)} = 'TaskRecord' AND ${sql.literal(idColumn)} = ${recordId} OR ${sql.literal(type)} = 'TaskRecordReview' AND ${sql.literal(idColumn)} IN ${reviews})`
  return sql`r.public AND (${about("r.target_type", "r.target_id")} OR ${about("r.action_object_type", "r.action_object_id")})`
}

const userStream: Filter = (value, context) =>
  Effect.gen(function* () {
    // Checked like the other relationship filters: an unknown user is a 400 rather than an empty list.
    yield* relationExact("r.actor_id", "users", "user_stream")(value, context)
    return actionsOfUser(context, Number(value.trim()))
  })

export const actionDefinition: ResourceDefinition = {
  key: "Action",
  type: "Action",
  selfPath: "actions",
  from: "review_actions r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.verb, r.data, r.public, r.description, ${isoTimestamp("r.timestamp", "timestamp")}, r.actor_id AS "actorId",
      r.target_type AS "targetType", r.target_id AS "targetId", r.action_object_type AS "actionObjectType", r.action_object_id AS "actionObjectId"`),
  attributes: (row: Row) => ({
    verb: row.verb,
    data: row.data,
    public: row.public,
    description: row.description,
    timestamp: isoText(row.timestamp)
  }),
  toOne: {
    actor: { resource: "User", id: (row) => row.actorId as number | null },
    actionObject: polymorphic("actionObjectType", "actionObjectId"),
    target: polymorphic("targetType", "targetId")
  },
  defaultInclude: ["actor", "actionObject", "target"],
  includable: ["actor", "actionObject", "target"],
  filters: { verb: textExact("r.verb"), verb__in: textIn("r.verb"), user_stream: userStream },
  defaultOrder: "r.timestamp DESC, r.id DESC",
  paginated: true
}

const isoDate = (name: string, value: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
    ? Effect.succeed(value)
    : Effect.fail(new InvalidFilter({ field: name, reason: "Enter a valid date.", code: "invalid" }))

export const actionAggregateDefinition: ResourceDefinition = {
  key: "ActionAggregate",
  type: "ActionAggregate",
  selfPath: "action-aggregates",
  from: "review_action_aggregates r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.verb, to_char(r.date, 'YYYY-MM-DD') AS date, r.count, r.user_id AS "userId", r.task_id AS "taskId"`),
  attributes: (row: Row) => ({ verb: row.verb, date: row.date, count: row.count }),
  toOne: { user: { resource: "User", id: (row) => row.userId as number }, task: { resource: "Task", id: (row) => row.taskId as number } },
  defaultInclude: ["user", "task"],
  includable: ["user", "task"],
  filters: {
    user: integerExact("r.user_id"),
    user__in: integerIn("r.user_id"),
    verb: textExact("r.verb"),
    verb__in: textIn("r.verb"),
    date_after: (value, { sql }) => Effect.map(isoDate("date_after", value), (date) => sql`r.date >= ${date}::date`),
    date_before: (value, { sql }) => Effect.map(isoDate("date_before", value), (date) => sql`r.date <= ${date}::date`)
  },
  // Aggregates of the tasks of every project in which the user checks a task; staff see all.
  scope: (context) =>
    context.user.isStaff
      ? context.sql`TRUE`
      : context.sql`r.task_id IN (SELECT t.id FROM review_tasks t WHERE t.project_id IN (SELECT project_id FROM review_tasks WHERE id IN ${checkedTasks(context)}))`,
  defaultOrder: "r.date DESC, r.id DESC",
  paginated: true
}

export const userNotificationDefinition: ResourceDefinition = {
  key: "UserNotification",
  type: "UserNotification",
  selfPath: "user-notifications",
  from: "review_user_notifications r",
  columns: ({ sql }) =>
    sql.literal(
      `r.id, r.read, ${isoTimestamp("r.read_at", "readAt")}, ${isoTimestamp("r.created_at", "createdAt")}, r.action_id AS "actionId"`
    ),
  attributes: (row: Row) => ({ read: row.read, readAt: isoText(row.readAt), createdAt: isoText(row.createdAt) }),
  toOne: { action: { resource: "Action", id: (row) => row.actionId as number } },
  includable: ["action", "action.actor", "action.actionObject", "action.target"],
  filters: {
    level: (value, { sql }) =>
      ["INFO", "ERROR", "SUCCESS", "WARNING"].includes(value)
        ? Effect.succeed(sql`r.level = ${value}`)
        : Effect.fail(new InvalidFilter({ field: "level", reason: invalidChoice, code: "invalid_choice" }))
  },
  sorts: { created_at: "r.created_at" },
  // Everyone, staff included, sees only their own notifications.
  scope: (context) => context.sql`r.recipient_id = ${context.user.id}`,
  defaultOrder: "r.created_at DESC, r.id DESC",
  paginated: true
}
