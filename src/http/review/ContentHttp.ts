import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import { attributeAutomatically } from "../../domain/review/Attribution.ts"
import { recordTaskStatusChange, recordTipSaved } from "../../domain/review/ContentActivity.ts"
import { ChoiceGroupFrozen, StillInUse } from "../../domain/review/ReviewErrors.ts"
import { pathParam } from "../Http.ts"
import { readDocument, type RequestDocument } from "./Document.ts"
import { JsonApiError } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import type { ReadContext, ResourceDefinition } from "./Resource.ts"
import { registry } from "./resources/index.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, noContent, staffContext } from "./Route.ts"
import { type CheckedWrite, checkWrite, existingId, insertRow, updateRow, type WriteRules } from "./Writer.ts"

type Write<A> = Effect.Effect<A, JsonApiError | ChoiceGroupFrozen | StillInUse | SqlError.SqlError, SqlClient.SqlClient>

/** The domain's refusals as JSON:API errors, pointing at the field concerned. */
const asJsonApi = <A>(write: Write<A>) =>
  write.pipe(
    Effect.catchTags({
      ChoiceGroupFrozen: (error) => Effect.fail(new JsonApiError({ status: 400, detail: error.message, pointer: "/data/relationships/choiceGroup", code: "invalid" })),
      StillInUse: (error) => Effect.fail(new JsonApiError({ status: 400, detail: error.message, pointer: "/data", code: "protected" }))
    })
  )

/** One resource the staff manage: its collection path, table, rules, and the steps beyond a plain insert/update. */
interface ContentSpec {
  readonly path: string
  readonly table: string
  readonly definition: ResourceDefinition
  readonly rules: WriteRules
  /** Column values derived on creation (creator, defaults). */
  readonly onCreate?: (context: ReadContext, columns: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>
  /** Column values adjusted on every write (a value defaulting to the name). */
  readonly normalise?: (columns: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>
  /** Replaces the plain insert (tasks create their template setting and checkers). */
  readonly create?: (context: ReadContext, write: CheckedWrite, columns: Readonly<Record<string, unknown>>) => Write<number>
  readonly update?: (context: ReadContext, id: number, write: CheckedWrite, columns: Readonly<Record<string, unknown>>) => Write<void>
  readonly beforeDelete?: (context: ReadContext, id: number) => Write<void>
}

const modelOf = (spec: ContentSpec) => (typeof spec.definition.type === "string" ? spec.definition.type : "")

/** The resource as a detail GET shows it (default includes), after a create or an update. */
const render = (context: ReadContext, spec: ContentSpec, id: number, status: number) =>
  Effect.map(readOne(registry, context, spec.definition, String(id), new URLSearchParams(), `No ${modelOf(spec)} matches the given query.`), (body) =>
    document(body, status)
  )

const createHandler = (spec: ContentSpec) =>
  Effect.gen(function* () {
    const context = yield* staffContext
    const request = yield* readDocument(modelOf(spec))
    const write = yield* checkWrite(context.sql, request, spec.rules, true)
    const derived = { ...write.columns, ...spec.onCreate?.(context, write.columns) }
    const columns = spec.normalise?.(derived) ?? derived
    const id = yield* asJsonApi(context.sql.withTransaction(spec.create?.(context, write, columns) ?? insertRow(context.sql, spec.table, columns)))
    return yield* render(context, spec, id, 201)
  })

/** Checks a staff update of content and answers the write to run (in the caller's transaction). */
const contentUpdate = (spec: ContentSpec, context: ReadContext, id: number, request: RequestDocument) =>
  Effect.gen(function* () {
    const write = yield* checkWrite(context.sql, request, spec.rules, false)
    const columns = spec.normalise?.(write.columns) ?? write.columns
    return asJsonApi(spec.update?.(context, id, write, columns) ?? updateRow(context.sql, spec.table, id, columns))
  })

const updateHandler = (spec: ContentSpec) =>
  Effect.gen(function* () {
    const context = yield* staffContext
    const urlId = yield* pathParam("id")
    const id = yield* existingId(context.sql, spec.table, modelOf(spec), urlId)
    const write = yield* contentUpdate(spec, context, id, yield* readDocument(modelOf(spec), urlId))
    yield* context.sql.withTransaction(write)
    return yield* render(context, spec, id, 200)
  })

const deleteHandler = (spec: ContentSpec) =>
  Effect.gen(function* () {
    const context = yield* staffContext
    const id = yield* existingId(context.sql, spec.table, modelOf(spec), yield* pathParam("id"))
    yield* asJsonApi(
      context.sql.withTransaction(
        Effect.gen(function* () {
          if (spec.beforeDelete !== undefined) yield* spec.beforeDelete(context, id)
          yield* context.sql`DELETE FROM ${context.sql.literal(spec.table)} WHERE id = ${id}`
        })
      )
    )
    return noContent
  })

/** An update that leaves `value` empty takes the row's name, whether or not the request sent the name. */
const updateNamedValue = (table: string) => (context: ReadContext, id: number, _: CheckedWrite, columns: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    yield* updateRow(context.sql, table, id, columns)
    yield* context.sql`UPDATE ${context.sql.literal(table)} SET value = name WHERE id = ${id} AND value = ''`
  })

/** `value` defaults to `name` when empty (choices and alternative values). */
const valueDefaultsToName = (columns: Readonly<Record<string, unknown>>) =>
  "name" in columns && (columns.value === undefined || columns.value === "" || columns.value === null) ? { ...columns, value: columns.name } : columns

const named = { name: { kind: "string", max: 100, required: true } } as const
const nullableText = (max?: number) => ({ kind: "string", nullable: true, ...(max === undefined ? {} : { max }) }) as const
const choiceGroupRelation = { choice_group: { type: "ChoiceGroup", table: "review_choice_groups", column: "choice_group_id", required: true } } as const

const setCheckers = (context: ReadContext, taskId: number, checkers: ReadonlyArray<number> | undefined) =>
  checkers === undefined
    ? Effect.void
    : Effect.gen(function* () {
        yield* context.sql`DELETE FROM review_task_checkers WHERE task_id = ${taskId}`
        if (checkers.length > 0) {
          yield* context.sql`INSERT INTO review_task_checkers (task_id, checker_id) SELECT ${taskId}, unnest(${[...new Set(checkers)]}::int[])`
        }
      })

/** A task's template setting follows its template type; converting keeps the common fields. */
const syncTemplateSetting = (context: ReadContext, taskId: number) =>
  context.sql`
    UPDATE review_template_settings s SET kind = t.template_type, ratio = CASE WHEN t.template_type = 'IFRAME' THEN s.ratio END
    FROM review_tasks t WHERE t.id = ${taskId} AND s.id = t.template_setting_id`

const taskSpec: ContentSpec = {
  path: "tasks",
  table: "review_tasks",
  definition: registry.Task,
  rules: {
    attributes: {
      ...named,
      description: { kind: "string", max: 100 },
      rounds: { kind: "integer", min: 1 },
      priority: { kind: "integer", min: 1 },
      color: { kind: "string", max: 100 },
      status: { kind: "choice", values: ["OPEN", "CLOSED", "LOCKED"] },
      template_type: { kind: "choice", values: ["TEXT", "MEDIA", "IFRAME"] },
      record_link_template: nullableText(1000),
      embeddable_links: { kind: "boolean" },
      embeddable_record_link_template: nullableText(1000),
      automatic_round_attributions: { kind: "boolean" },
      allow_multiple_checks: { kind: "boolean" },
      allow_items_addition: { kind: "boolean" }
    },
    toOne: {
      project: { type: "Project", table: "review_projects", column: "project_id", required: true },
      choice_group: { type: "ChoiceGroup", table: "review_choice_groups", column: "choice_group_id" }
    },
    toMany: { checkers: { type: "User", table: "users" } }
  },
  onCreate: (context) => ({ creator_id: context.user.id }),
  create: (context, write, columns) =>
    Effect.gen(function* () {
      const settingId = yield* insertRow(context.sql, "review_template_settings", { kind: columns.template_type ?? "TEXT" })
      const id = yield* insertRow(context.sql, "review_tasks", { ...columns, template_setting_id: settingId })
      yield* setCheckers(context, id, write.many.checkers)
      return id
    }),
  update: (context, id, write, columns) =>
    Effect.gen(function* () {
      if ("choice_group_id" in columns) {
        const [current] = yield* context.sql<{ choiceGroupId: number | null; reviewed: boolean }>`
          SELECT choice_group_id AS "choiceGroupId", EXISTS (
            SELECT 1 FROM review_task_record_reviews v JOIN review_task_records r ON r.id = v.task_record_id WHERE r.task_id = t.id
          ) AS reviewed
          FROM review_tasks t WHERE t.id = ${id} FOR UPDATE`
        if (current !== undefined && current.reviewed && current.choiceGroupId !== columns.choice_group_id) {
          return yield* new ChoiceGroupFrozen()
        }
      }
      const [previous] = yield* context.sql<{ status: string }>`SELECT status FROM review_tasks WHERE id = ${id}`
      yield* updateRow(context.sql, "review_tasks", id, columns)
      yield* setCheckers(context, id, write.many.checkers)
      if ("template_type" in columns) yield* syncTemplateSetting(context, id)
      if (previous !== undefined) yield* recordTaskStatusChange(id, previous.status)
    }),
  beforeDelete: (context, id) => Effect.asVoid(context.sql`DELETE FROM review_template_settings WHERE id = (SELECT template_setting_id FROM review_tasks WHERE id = ${id})`)
}

const taskRecordSpec: ContentSpec = {
  path: "task-records",
  table: "review_task_records",
  definition: registry.TaskRecord,
  rules: {
    attributes: {
      original_value: nullableText(),
      predicted_value: nullableText(),
      uid: nullableText(100),
      metadata: { kind: "json" },
      priority: { kind: "integer", min: 1 },
      link: nullableText(1000),
      embeddable_link: nullableText(1000)
    },
    toOne: { task: { type: "Task", table: "review_tasks", column: "task_id", required: true } }
  },
  normalise: (columns) => ("metadata" in columns ? { ...columns, metadata: JSON.stringify(columns.metadata) } : columns),
  create: (context, _, columns) =>
    Effect.gen(function* () {
      const id = yield* insertRow(context.sql, "review_task_records", columns)
      yield* attributeAutomatically(columns.task_id as number, [id])
      return id
    })
}

/** A tip takes its task's project when it has none, and drops a task that is not in its project. */
const tipColumns = (context: ReadContext, id: number | undefined, columns: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const [current] = id === undefined ? [] : yield* context.sql<{ projectId: number | null; taskId: number | null }>`
      SELECT project_id AS "projectId", task_id AS "taskId" FROM review_tips WHERE id = ${id}`
    const taskId = ("task_id" in columns ? columns.task_id : current?.taskId ?? null) as number | null
    const projectId = ("project_id" in columns ? columns.project_id : current?.projectId ?? null) as number | null
    if (taskId === null) return columns
    const [task] = yield* context.sql<{ projectId: number }>`SELECT project_id AS "projectId" FROM review_tasks WHERE id = ${taskId}`
    if (projectId === null) return { ...columns, project_id: task!.projectId }
    return task!.projectId === projectId ? columns : { ...columns, task_id: null }
  })

const tipSpec: ContentSpec = {
  path: "tips",
  table: "review_tips",
  definition: registry.Tip,
  rules: {
    attributes: { name: nullableText(100), description: { kind: "string" } },
    toOne: {
      project: { type: "Project", table: "review_projects", column: "project_id" },
      task: { type: "Task", table: "review_tasks", column: "task_id" }
    }
  },
  onCreate: (context) => ({ creator_id: context.user.id }),
  create: (context, _, columns) =>
    Effect.gen(function* () {
      const id = yield* insertRow(context.sql, "review_tips", yield* tipColumns(context, undefined, columns))
      yield* recordTipSaved(id, true)
      return id
    }),
  update: (context, id, _, columns) =>
    Effect.gen(function* () {
      yield* updateRow(context.sql, "review_tips", id, { ...(yield* tipColumns(context, id, columns)), updated_at: new Date() })
      yield* recordTipSaved(id, false)
    })
}

const specs: ReadonlyArray<ContentSpec> = [
  {
    path: "projects",
    table: "review_projects",
    definition: registry.Project,
    rules: { attributes: named },
    onCreate: (context) => ({ creator_id: context.user.id })
  },
  {
    path: "choice-groups",
    table: "review_choice_groups",
    definition: registry.ChoiceGroup,
    rules: { attributes: named },
    beforeDelete: (context, id) =>
      Effect.gen(function* () {
        const used = yield* context.sql`SELECT 1 FROM review_tasks WHERE choice_group_id = ${id} LIMIT 1`
        if (used.length > 0) return yield* new StillInUse({ reason: "This choice group is used by a task and cannot be deleted." })
      })
  },
  {
    path: "choices",
    table: "review_choices",
    definition: registry.Choice,
    rules: {
      attributes: { ...named, value: { kind: "string", max: 100 }, color: nullableText(100), shortkeys: nullableText(100), require_alternative_value: { kind: "boolean" } },
      toOne: choiceGroupRelation
    },
    normalise: valueDefaultsToName,
    update: updateNamedValue("review_choices")
  },
  {
    path: "alternative-values",
    table: "review_alternative_values",
    definition: registry.AlternativeValue,
    rules: { attributes: { ...named, value: { kind: "string", max: 100 } }, toOne: choiceGroupRelation },
    normalise: valueDefaultsToName,
    update: updateNamedValue("review_alternative_values")
  },
  taskSpec,
  taskRecordSpec,
  tipSpec
]

const routesOf = (spec: ContentSpec) => {
  const path = `${apiRoot}/${spec.path}`
  const summary = (action: string) => `${modelOf(spec)}: ${action} (staff only)`
  return [
    jsonApiRoute("POST", path, createHandler(spec), summary("create")),
    // Records are updated through RecordWriteHttp, where staff content edits meet the checkers' lock and bookmark.
    ...(spec === taskRecordSpec ? [] : [jsonApiRoute("PATCH", `${path}/:id`, updateHandler(spec), summary("update the attributes sent"))]),
    jsonApiRoute("DELETE", `${path}/:id`, deleteHandler(spec), summary("delete"))
  ]
}

/** A staff edit of a record's content (uid, values, metadata, priority, links), to run in the caller's transaction. */
export const recordContentUpdate = (context: ReadContext, id: number, request: RequestDocument) => contentUpdate(taskRecordSpec, context, id, request)

export const contentRoutes = specs.flatMap(routesOf)
