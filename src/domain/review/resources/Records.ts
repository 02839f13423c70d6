import { Effect } from "effect"
import { recordEmbeddableLink, recordLink } from "../LinkTemplate.ts"
import type { ResourceDefinition, Row } from "./Resource.ts"
import { checkedTasks, isoTimestamp, relationExact } from "./Filters.ts"
import { childPairs } from "./Content.ts"

const recordFields = (row: Row) => ({
  id: row.id,
  uid: row.uid,
  original_value: row.originalValue,
  predicted_value: row.predictedValue,
  metadata: row.metadata,
  task_id: row.taskId,
  status: row.status,
  rounds: row.rounds,
  priority: row.priority
})

export const taskRecordDefinition: ResourceDefinition = {
  key: "TaskRecord",
  type: "TaskRecord",
  selfPath: "task-records",
  from: "review_task_records r JOIN review_tasks t ON t.id = r.task_id",
  columns: ({ sql, user }) =>
    sql`r.id, r.task_id AS "taskId", r.uid, r.original_value AS "originalValue", r.predicted_value AS "predictedValue", r.metadata,
      r.status, r.rounds, r.priority, r.link, r.embeddable_link AS "embeddableLink", r.locked, r.locked_by_id AS "lockedById",
      t.record_link_template AS "linkTemplate", t.embeddable_record_link_template AS "embeddableLinkTemplate",
      EXISTS (SELECT 1 FROM review_task_record_bookmarks b WHERE b.task_record_id = r.id AND b.user_id = ${user.id}) AS bookmarked`,
  attributes: (row: Row) => {
    const fields = recordFields(row)
    const link = recordLink(row.link as string | null, row.linkTemplate as string | null, fields)
    return {
      uid: row.uid,
      originalValue: row.originalValue,
      predictedValue: row.predictedValue,
      link,
      embeddableLink: recordEmbeddableLink(row.embeddableLink as string | null, row.embeddableLinkTemplate as string | null, fields, link),
      locked: row.locked,
      metadata: row.metadata,
      rounds: row.rounds,
      status: row.status,
      bookmarked: row.bookmarked
    }
  },
  toOne: {
    task: { resource: "Task", id: (row) => row.taskId as number },
    lockedBy: { resource: "User", id: (row) => row.lockedById as number | null }
  },
  toMany: { medias: { resource: "TaskRecordMedia", pairs: childPairs("review_task_record_media", "task_record_id") } },
  defaultInclude: ["lockedBy", "task", "medias"],
  includable: [
    "lockedBy",
    "medias",
    "task",
    "task.project",
    "task.checkers",
    "task.choiceGroup",
    "task.choiceGroup.choices",
    "task.choiceGroup.alternativeValues",
    "task.templateSetting"
  ],
  filters: {
    task: relationExact("r.task_id", "review_tasks", "task"),
    reviewed: (value, { sql }) => {
      const pending = sql`EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = r.id AND v.status = 'PENDING')`
      const done = sql`EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = r.id AND v.status = 'DONE')`
      return Effect.succeed(value === "0" ? pending : value === "1" ? sql`${done} AND NOT ${pending}` : sql`TRUE`)
    }
  },
  sorts: {
    id: "r.id",
    uid: "r.uid",
    original_value: "r.original_value",
    predicted_value: "r.predicted_value",
    status: "r.status",
    rounds: "r.rounds",
    priority: "r.priority",
    locked: "r.locked",
    link: "r.link",
    embeddable_link: "r.embeddable_link"
  },
  // Records carry document text, paths and project names (those made from batch searches): unlike the reference,
  // only checkers of their task and staff see them, in lists, details and includes.
  scope: (context) => (context.user.isStaff ? context.sql`TRUE` : context.sql`r.task_id IN ${checkedTasks(context)}`),
  scopesIncludes: true,
  defaultOrder: "r.id DESC",
  paginated: true
}

const mediaType = (mime: unknown) =>
  typeof mime !== "string" ? null : mime.startsWith("image/") ? "IMAGE" : mime.startsWith("video/") ? "VIDEO" : null

export const taskRecordMediaDefinition: ResourceDefinition = {
  key: "TaskRecordMedia",
  type: "TaskRecordMedia",
  selfPath: "task-record-media",
  from: "review_task_record_media r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.task_id AS "taskId", r.task_record_id AS "taskRecordId", r.uid, r.mime_type AS "mimeType", r.file,
      ${isoTimestamp("r.created_at", "createdAt")}`),
  attributes: (row: Row, context) => ({
    file: `${context.baseUrl}/api/v1/task-record-media/${row.id}/file/`,
    mediaType: mediaType(row.mimeType),
    mimeType: row.mimeType,
    taskId: String(row.taskId),
    taskRecordId: row.taskRecordId === null ? null : String(row.taskRecordId),
    uid: row.uid
  }),
  sorts: { created_at: "r.created_at" },
  search: ["r.uid"],
  scope: (context) => (context.user.isStaff ? context.sql`TRUE` : context.sql`r.task_id IN ${checkedTasks(context)}`),
  defaultOrder: "r.created_at DESC, r.id DESC",
  paginated: true
}
