import type { ResourceDefinition, Row } from "./Resource.ts"
import { checkedTasks, integerExact, relationExact } from "./Filters.ts"

/** Rows of the tasks one checks, other checkers' rows included; staff see all. */
const statisticsScope: ResourceDefinition["scope"] = (context) =>
  context.user.isStaff ? context.sql`TRUE` : context.sql`r.task_id IN ${checkedTasks(context)}`

const ownerFilters = {
  task: relationExact("r.task_id", "review_tasks", "task"),
  checker: relationExact("r.checker_id", "users", "checker"),
  round: integerExact("r.round")
}

const taskAndChecker = {
  task: { resource: "Task", id: (row: Row) => row.taskId as number },
  checker: { resource: "User", id: (row: Row) => row.checkerId as number }
} as const

/** A checker's progress in one round of a task, counted from their reviews when read. */
export const taskUserStatisticsDefinition: ResourceDefinition = {
  key: "TaskUserStatistics",
  type: "TaskUserStatistics",
  selfPath: "task-user-statistics",
  from: "review_task_user_statistics_counts r",
  columns: ({ sql }) =>
    sql.literal(
      `r.id, r.task_id AS "taskId", r.checker_id AS "checkerId", r.round, r.done_count AS "doneCount", r.pending_count AS "pendingCount"`
    ),
  attributes: (row: Row) => {
    const done = row.doneCount as number
    const total = done + (row.pendingCount as number)
    return {
      round: row.round,
      doneCount: done,
      pendingCount: row.pendingCount,
      totalCount: total,
      progress: total === 0 ? 0 : (done / total) * 100
    }
  },
  toOne: taskAndChecker,
  includable: ["task", "checker"],
  filters: ownerFilters,
  scope: statisticsScope,
  defaultOrder: "r.id",
  paginated: false
}

/** How many of a checker's reviews in a round of a task carry each choice. */
export const taskUserChoiceStatisticsDefinition: ResourceDefinition = {
  key: "TaskChoiceStatistics",
  type: "TaskChoiceStatistics",
  selfPath: "task-user-choice-statistics",
  from: "review_task_user_choice_statistics_counts r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.task_id AS "taskId", r.checker_id AS "checkerId", r.round, r.choice_id AS "choiceId", r.count`),
  attributes: (row: Row) => ({ round: row.round, count: row.count }),
  toOne: { ...taskAndChecker, choice: { resource: "Choice", id: (row: Row) => row.choiceId as number } },
  defaultInclude: ["task", "choice", "checker"],
  includable: ["task", "choice", "checker", "task.choiceGroup", "task.choiceGroup.choices"],
  filters: { ...ownerFilters, choice: relationExact("r.choice_id", "review_choices", "choice") },
  scope: statisticsScope,
  defaultOrder: "r.id",
  paginated: false
}
