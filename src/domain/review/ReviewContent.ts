/** The staff's writes of review content beyond a plain insert, update or delete; callers hold the transaction. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { attributeAutomatically } from "./Attribution.ts"
import { recordTaskStatusChange, recordTipSaved } from "./ContentActivity.ts"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { ChoiceGroupFrozen, StillInUse } from "./ReviewErrors.ts"
import { insertRow, updateRow } from "./ReviewRows.ts"

/** Column values by snake_case name, as checked from a staff request. */
export type Columns = Readonly<Record<string, unknown>>

const setCheckers = (taskId: number, checkers: ReadonlyArray<number> | undefined) =>
  Effect.gen(function* () {
    if (checkers === undefined) return
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM review_task_checkers WHERE task_id = ${taskId}`
    if (checkers.length > 0)
      yield* sql`INSERT INTO review_task_checkers (task_id, checker_id) SELECT ${taskId}, unnest(${[...new Set(checkers)]}::int[])`
  }).pipe(dieOnSqlError)

/** A task with its template setting (of its template type) and its checkers. */
export const createTask = (columns: Columns, checkers: ReadonlyArray<number> | undefined) =>
  Effect.gen(function* () {
    const settingId = yield* insertRow("review_template_settings", { kind: columns.template_type ?? "TEXT" })
    const id = yield* insertRow("review_tasks", { ...columns, template_setting_id: settingId })
    yield* setCheckers(id, checkers)
    return id
  })

/**
 * A task's update: its choice group is frozen once it has reviews, its template setting follows its template type
 * (converting keeps the common fields), and a change of status is recorded as an action.
 */
export const updateTask = (id: number, columns: Columns, checkers: ReadonlyArray<number> | undefined) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if ("choice_group_id" in columns) {
      const [current] = yield* sql<{ choiceGroupId: number | null; reviewed: boolean }>`
        SELECT choice_group_id AS "choiceGroupId", EXISTS (
          SELECT 1 FROM review_task_record_reviews v JOIN review_task_records r ON r.id = v.task_record_id WHERE r.task_id = t.id
        ) AS reviewed
        FROM review_tasks t WHERE t.id = ${id} FOR UPDATE`
      if (current !== undefined && current.reviewed && current.choiceGroupId !== columns.choice_group_id) {
        return yield* new ChoiceGroupFrozen()
      }
    }
    const [previous] = yield* sql<{ status: string }>`SELECT status FROM review_tasks WHERE id = ${id}`
    yield* updateRow("review_tasks", id, columns)
    yield* setCheckers(id, checkers)
    if ("template_type" in columns) {
      yield* sql`
        UPDATE review_template_settings s SET kind = t.template_type, ratio = CASE WHEN t.template_type = 'IFRAME' THEN s.ratio END
        FROM review_tasks t WHERE t.id = ${id} AND s.id = t.template_setting_id`
    }
    if (previous !== undefined) yield* recordTaskStatusChange(id, previous.status)
  }).pipe(dieOnSqlError)

/** Before a task goes, its template setting. */
export const deleteTaskSetting = (id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM review_template_settings WHERE id = (SELECT template_setting_id FROM review_tasks WHERE id = ${id})`
  }).pipe(dieOnSqlError)

/** A record added by hand gets its automatic attributions, as imported ones do. */
export const createRecord = (columns: Columns) =>
  Effect.gen(function* () {
    const id = yield* insertRow("review_task_records", columns)
    yield* attributeAutomatically(columns.task_id as number, [id])
    return id
  })

/** A tip takes its task's project when it has none, and drops a task that is not in its project. */
const tipColumns = (id: number | undefined, columns: Columns) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [current] =
      id === undefined
        ? []
        : yield* sql<{ projectId: number | null; taskId: number | null }>`
      SELECT project_id AS "projectId", task_id AS "taskId" FROM review_tips WHERE id = ${id}`
    const taskId = ("task_id" in columns ? columns.task_id : (current?.taskId ?? null)) as number | null
    const projectId = ("project_id" in columns ? columns.project_id : (current?.projectId ?? null)) as number | null
    if (taskId === null) return columns
    const [task] = yield* sql<{ projectId: number }>`SELECT project_id AS "projectId" FROM review_tasks WHERE id = ${taskId}`
    if (projectId === null) return { ...columns, project_id: task!.projectId }
    return task!.projectId === projectId ? columns : { ...columns, task_id: null }
  }).pipe(dieOnSqlError)

/** A tip's creation, recorded with the mentions of its description. */
export const createTip = (columns: Columns) =>
  Effect.gen(function* () {
    const id = yield* insertRow("review_tips", yield* tipColumns(undefined, columns))
    yield* recordTipSaved(id, true)
    return id
  })

export const updateTip = (id: number, columns: Columns) =>
  Effect.gen(function* () {
    yield* updateRow("review_tips", id, { ...(yield* tipColumns(id, columns)), updated_at: new Date() })
    yield* recordTipSaved(id, false)
  })

/** A choice group serving a task stays. */
export const checkChoiceGroupUnused = (id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const used = yield* sql`SELECT 1 FROM review_tasks WHERE choice_group_id = ${id} LIMIT 1`
    if (used.length > 0) return yield* new StillInUse({ reason: "This choice group is used by a task and cannot be deleted." })
  }).pipe(dieOnSqlError)

/** `value` defaults to `name` when empty (choices and alternative values). */
export const valueDefaultsToName = (columns: Columns) =>
  "name" in columns && (columns.value === undefined || columns.value === "" || columns.value === null)
    ? { ...columns, value: columns.name }
    : columns

/** A record's metadata is stored as the JSON text sent. */
export const metadataAsJson = (columns: Columns) =>
  "metadata" in columns ? { ...columns, metadata: JSON.stringify(columns.metadata) } : columns

/** An update of a choice or an alternative value that leaves `value` empty takes the row's name, sent or not. */
export const updateNamedValue = (table: "review_choices" | "review_alternative_values", id: number, columns: Columns) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* updateRow(table, id, columns)
    yield* sql`UPDATE ${sql.literal(table)} SET value = name WHERE id = ${id} AND value = ''`
  }).pipe(dieOnSqlError)

/** The kind of a template setting (TEXT, MEDIA, IFRAME), undefined when there is no such setting. */
export const templateSettingKind = (id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [setting] = yield* sql<{ kind: string }>`SELECT kind FROM review_template_settings WHERE id = ${id}`
    return setting?.kind
  }).pipe(dieOnSqlError)
