import { Effect } from "effect"
import { badRequest } from "../JsonApiError.ts"
import type { Filter, ResourceDefinition, ResourceKey, Row } from "../Resource.ts"
import { checkedTasks, integerExact, integerIn, isoText, isoTimestamp, relationExact, textExact, textIn } from "./Filters.ts"

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

/** Public actions where the user is the actor or the target. */
const userStream: Filter = (value, context) =>
  Effect.gen(function* () {
    // Checked like the other relationship filters: an unknown user is a 400 rather than an empty list.
    yield* relationExact("r.actor_id", "users", "user_stream")(value, context)
    const id = Number(value.trim())
    return context.sql`r.public AND (r.actor_id = ${id} OR (r.target_type = 'User' AND r.target_id = ${id}))`
  })

export const actionDefinition: ResourceDefinition = {
  key: "Action",
  type: "Action",
  selfPath: "actions",
  from: "review_actions r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.verb, r.data, r.public, r.description, ${isoTimestamp("r.timestamp", "timestamp")}, r.actor_id AS "actorId",
      r.target_type AS "targetType", r.target_id AS "targetId", r.action_object_type AS "actionObjectType", r.action_object_id AS "actionObjectId"`),
  attributes: (row: Row) => ({ verb: row.verb, data: row.data, public: row.public, description: row.description, timestamp: isoText(row.timestamp) }),
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
  /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) ? Effect.succeed(value) : Effect.fail(badRequest("Enter a valid date.", `/data/attributes/${name}`))

export const actionAggregateDefinition: ResourceDefinition = {
  key: "ActionAggregate",
  type: "ActionAggregate",
  selfPath: "action-aggregates",
  from: "review_action_aggregates r",
  columns: ({ sql }) => sql.literal(`r.id, r.verb, to_char(r.date, 'YYYY-MM-DD') AS date, r.count, r.user_id AS "userId", r.task_id AS "taskId"`),
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
    sql.literal(`r.id, r.read, ${isoTimestamp("r.read_at", "readAt")}, ${isoTimestamp("r.created_at", "createdAt")}, r.action_id AS "actionId"`),
  attributes: (row: Row) => ({ read: row.read, readAt: isoText(row.readAt), createdAt: isoText(row.createdAt) }),
  toOne: { action: { resource: "Action", id: (row) => row.actionId as number } },
  includable: ["action", "action.actor", "action.actionObject", "action.target"],
  filters: {
    level: (value, { sql }) =>
      ["INFO", "ERROR", "SUCCESS", "WARNING"].includes(value)
        ? Effect.succeed(sql`r.level = ${value}`)
        : Effect.fail(badRequest("Select a valid choice. That choice is not one of the available choices.", "/data/attributes/level", "invalid_choice"))
  },
  sorts: { created_at: "r.created_at" },
  // Everyone, staff included, sees only their own notifications.
  scope: (context) => context.sql`r.recipient_id = ${context.user.id}`,
  defaultOrder: "r.created_at DESC, r.id DESC",
  paginated: true
}
