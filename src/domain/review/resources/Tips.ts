import type { ResourceDefinition, Row } from "./Resource.ts"
import { checkedTasks, integerExact, integerIn, isoText, isoTimestamp, relationExact, textExact } from "./Filters.ts"

export const tipDefinition: ResourceDefinition = {
  key: "Tip",
  type: "Tip",
  from: "review_tips r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.name, r.description, r.project_id AS "projectId", r.task_id AS "taskId", r.creator_id AS "creatorId",
      ${isoTimestamp("r.created_at", "createdAt")}, ${isoTimestamp("r.updated_at", "updatedAt")}`),
  attributes: (row: Row) => ({
    name: row.name,
    description: row.description,
    createdAt: isoText(row.createdAt),
    updatedAt: isoText(row.updatedAt)
  }),
  toOne: {
    project: { resource: "Project", id: (row) => row.projectId as number | null },
    creator: { resource: "User", id: (row) => row.creatorId as number | null },
    task: { resource: "Task", id: (row) => row.taskId as number | null }
  },
  includable: ["creator", "project", "task"],
  filters: {
    name: textExact("r.name"),
    project: relationExact("r.project_id", "review_projects", "project"),
    task: relationExact("r.task_id", "review_tasks", "task"),
    creator: relationExact("r.creator_id", "users", "creator"),
    id: integerExact("r.id"),
    id__in: integerIn("r.id")
  },
  sorts: { name: "r.name", created_at: "r.created_at" },
  search: ["r.name", "r.description"],
  // Tips on tasks the user checks, plus tips on no task (general ones and project-wide ones, any project).
  scope: (context) =>
    context.user.isStaff ? context.sql`TRUE` : context.sql`(r.task_id IS NULL OR r.task_id IN ${checkedTasks(context)})`,
  defaultOrder: "r.created_at DESC, r.id DESC",
  paginated: false
}
