import { Effect } from "effect"
import { taskColors } from "../Colors.ts"
import { taskProgress, type RoundCounts } from "../Progress.ts"
import type { ReadContext, ResourceDefinition, Row } from "./Resource.ts"
import { checkedTasks, integerExact, isoText, isoTimestamp, textExact } from "./Filters.ts"

/** The JSON:API type of a template setting of a kind (TEXT → TaskTemplateSettingForText). */
export const templateSettingType = (kind: unknown) =>
  `TaskTemplateSettingFor${typeof kind === "string" ? kind.charAt(0) + kind.slice(1).toLowerCase() : "Text"}`

/** Tasks of every project in which the user checks at least one task; staff see every task. */
export const taskScope = (context: ReadContext) =>
  context.user.isStaff
    ? context.sql`TRUE`
    : context.sql`r.project_id IN (SELECT t.project_id FROM review_tasks t WHERE t.id IN ${checkedTasks(context)})`

/** Record counts and review counts per round for a page of tasks, merged into the rows. */
const withProgress = (context: ReadContext, rows: ReadonlyArray<Row>) =>
  Effect.gen(function* () {
    const { sql, user } = context
    const ids = rows.map((row) => row.id)
    const records = yield* sql<{ taskId: number; total: number; done: number }>`
      SELECT task_id AS "taskId", count(*)::int AS total, count(*) FILTER (WHERE status = 'DONE')::int AS done
      FROM review_task_records WHERE task_id = ANY(${ids}::int[]) GROUP BY task_id`
    const reviews = yield* sql<RoundCounts & { taskId: number }>`
      SELECT rec.task_id AS "taskId", rv.round, count(*)::int AS total,
        count(*) FILTER (WHERE rv.status = 'DONE')::int AS done,
        count(*) FILTER (WHERE rv.checker_id = ${user.id})::int AS mine,
        count(*) FILTER (WHERE rv.checker_id = ${user.id} AND rv.status = 'DONE')::int AS "mineDone"
      FROM review_task_record_reviews rv JOIN review_task_records rec ON rec.id = rv.task_record_id
      WHERE rec.task_id = ANY(${ids}::int[]) GROUP BY rec.task_id, rv.round`
    return rows.map((row) => {
      const counted = records.find((record) => record.taskId === row.id)
      return {
        ...row,
        taskRecordsCount: counted?.total ?? 0,
        taskRecordsDoneCount: counted?.done ?? 0,
        ...taskProgress(
          row.rounds as number,
          reviews.filter((review) => review.taskId === row.id)
        )
      }
    })
  })

/** The settings only the staff write, shown to them (and only them) so that they can edit them. */
const staffAttributes = (row: Row) => ({
  color: row.color,
  recordLinkTemplate: row.recordLinkTemplate,
  embeddableRecordLinkTemplate: row.embeddableRecordLinkTemplate,
  automaticRoundAttributions: row.automaticRoundAttributions,
  allowMultipleChecks: row.allowMultipleChecks,
  allowItemsAddition: row.allowItemsAddition
})

export const taskDefinition: ResourceDefinition = {
  key: "Task",
  type: "Task",
  selfPath: "tasks",
  from: "review_tasks r",
  columns: ({ sql }) =>
    sql.literal(`r.id, r.name, r.description, r.project_id AS "projectId", r.choice_group_id AS "choiceGroupId", r.rounds, r.priority,
      r.color, r.status, r.template_type AS "templateType", r.template_setting_id AS "templateSettingId",
      r.embeddable_links AS "embeddableLinks", ${isoTimestamp("r.created_at", "createdAt")},
      r.record_link_template AS "recordLinkTemplate", r.embeddable_record_link_template AS "embeddableRecordLinkTemplate",
      r.automatic_round_attributions AS "automaticRoundAttributions", r.allow_multiple_checks AS "allowMultipleChecks",
      r.allow_items_addition AS "allowItemsAddition"`),
  enrich: withProgress,
  attributes: (row: Row, context) => ({
    ...(context.user.isStaff ? staffAttributes(row) : {}),
    colors: taskColors(row.color as string),
    createdAt: isoText(row.createdAt),
    description: row.description,
    embeddableLinks: row.embeddableLinks,
    name: row.name,
    priority: row.priority,
    progressByRound: row.progressByRound,
    progress: row.progress,
    rounds: row.rounds,
    status: row.status,
    taskRecordsCount: row.taskRecordsCount,
    taskRecordsDoneCount: row.taskRecordsDoneCount,
    templateType: row.templateType,
    userProgressByRound: row.userProgressByRound,
    userProgress: row.userProgress,
    userTaskRecordsCount: row.userTaskRecordsCount,
    userTaskRecordsDoneCount: row.userTaskRecordsDoneCount
  }),
  toOne: {
    choiceGroup: { resource: "ChoiceGroup", id: (row) => row.choiceGroupId as number | null },
    project: { resource: "Project", id: (row) => row.projectId as number },
    templateSetting: {
      resource: "TaskTemplateSetting",
      id: (row) => row.templateSettingId as number | null,
      type: (row) => templateSettingType(row.templateType)
    }
  },
  toMany: {
    checkers: {
      resource: "User",
      pairs: ({ sql }, ids) =>
        sql<{ owner: number; id: number }>`
          SELECT task_id AS owner, checker_id AS id FROM review_task_checkers WHERE task_id = ANY(${ids}::int[]) ORDER BY checker_id`
    }
  },
  defaultInclude: ["project", "templateSetting"],
  includable: [
    "checkers",
    "choiceGroup",
    "choiceGroup.choices",
    "choiceGroup.alternativeValues",
    "project",
    "project.creator",
    "templateSetting"
  ],
  filters: {
    name: textExact("r.name"),
    rounds: integerExact("r.rounds"),
    priority: integerExact("r.priority"),
    checkers: (value, context) =>
      Effect.map(
        integerExact("c.checker_id")(value, context),
        (clause) => context.sql`r.id IN (SELECT c.task_id FROM review_task_checkers c WHERE ${clause})`
      )
  },
  sorts: { name: "r.name" },
  search: ["r.name", "r.description"],
  scope: taskScope,
  defaultOrder: "r.id DESC",
  paginated: false
}

export const templateSettingDefinition: ResourceDefinition = {
  key: "TaskTemplateSetting",
  type: (row) => templateSettingType(row.kind),
  from: "review_template_settings r",
  columns: ({ sql }) =>
    sql.literal(
      `r.id, r.kind, r.max_width AS "maxWidth", r.max_height AS "maxHeight", r.display_original_value AS "displayOriginalValue", r.ratio`
    ),
  attributes: (row: Row) => {
    if (row.kind === "TEXT") return {}
    const media = { maxWidth: row.maxWidth, maxHeight: row.maxHeight, displayOriginalValue: row.displayOriginalValue }
    return row.kind === "IFRAME" ? { ...media, ratio: row.ratio } : media
  },
  sorts: { id: "r.id" },
  defaultOrder: "r.id DESC",
  paginated: true
}

/** Every task of a project, whoever asks (as the reference lists a project's tasks). */
export const projectTaskDefinition: ResourceDefinition = { ...taskDefinition, scope: ({ sql }) => sql`TRUE` }

export const ofProject = ({ sql }: ReadContext, projectId: number) => sql`r.project_id = ${projectId}`
