import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import {
  checkChoiceGroupUnused,
  type Columns,
  createRecord,
  createTask,
  createTip,
  deleteTaskSetting,
  metadataAsJson,
  updateNamedValue,
  updateTask,
  updateTip,
  valueDefaultsToName
} from "../../domain/review/ReviewContent.ts"
import { registry } from "../../domain/review/resources/index.ts"
import type { ReadContext, ResourceDefinition } from "../../domain/review/resources/Resource.ts"
import { inTransaction } from "../../db/SqlFailure.ts"
import type { ChoiceGroupFrozen, StillInUse } from "../../domain/review/ReviewErrors.ts"
import { deleteRow, insertRow, type ReviewTable, updateRow } from "../../domain/review/ReviewRows.ts"
import { pathParam } from "../../transport/Http.ts"
import { readDocument, type RequestDocument } from "./Document.ts"
import { JsonApiError } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, noContent, staffContext } from "./Route.ts"
import { type CheckedWrite, checkWrite, existingId, type WriteRules } from "./Writer.ts"

type Write<A> = Effect.Effect<A, JsonApiError | ChoiceGroupFrozen | StillInUse, SqlClient.SqlClient>

/** The domain's refusals as JSON:API errors, pointing at the field concerned. */
const asJsonApi = <A>(write: Write<A>) =>
  write.pipe(
    Effect.catchTags({
      ChoiceGroupFrozen: (error) =>
        Effect.fail(new JsonApiError({ status: 400, detail: error.message, pointer: "/data/relationships/choiceGroup", code: "invalid" })),
      StillInUse: (error) => Effect.fail(new JsonApiError({ status: 400, detail: error.message, pointer: "/data", code: "protected" }))
    })
  )

/** One resource the staff manage: its collection path, table, rules, and the steps beyond a plain insert/update. */
interface ContentSpec {
  readonly path: string
  readonly table: ReviewTable
  readonly definition: ResourceDefinition
  readonly rules: WriteRules
  /** Column values derived on creation (creator, defaults). */
  readonly onCreate?: (context: ReadContext, columns: Columns) => Columns
  /** Column values adjusted on every write (a value defaulting to the name). */
  readonly normalise?: (columns: Columns) => Columns
  /** Replaces the plain insert (tasks create their template setting and checkers). */
  readonly create?: (write: CheckedWrite, columns: Columns) => Write<number>
  readonly update?: (id: number, write: CheckedWrite, columns: Columns) => Write<void>
  readonly beforeDelete?: (id: number) => Write<void>
}

const modelOf = (spec: ContentSpec) => (typeof spec.definition.type === "string" ? spec.definition.type : "")

/** The resource as a detail GET shows it (default includes), after a create or an update. */
const render = (context: ReadContext, spec: ContentSpec, id: number, status: number) =>
  Effect.map(
    readOne(registry, context, spec.definition, String(id), new URLSearchParams(), `No ${modelOf(spec)} matches the given query.`),
    (body) => document(body, status)
  )

const createHandler = (spec: ContentSpec) =>
  Effect.gen(function* () {
    const context = yield* staffContext
    const request = yield* readDocument(modelOf(spec))
    const write = yield* checkWrite(request, spec.rules, true)
    const derived = { ...write.columns, ...spec.onCreate?.(context, write.columns) }
    const columns = spec.normalise?.(derived) ?? derived
    const id = yield* asJsonApi(inTransaction(spec.create?.(write, columns) ?? insertRow(spec.table, columns)))
    return yield* render(context, spec, id, 201)
  })

/** Checks a staff update of content and answers the write to run (in the caller's transaction). */
const contentUpdate = (spec: ContentSpec, id: number, request: RequestDocument) =>
  Effect.gen(function* () {
    const write = yield* checkWrite(request, spec.rules, false)
    const columns = spec.normalise?.(write.columns) ?? write.columns
    return asJsonApi(spec.update?.(id, write, columns) ?? updateRow(spec.table, id, columns))
  })

const updateHandler = (spec: ContentSpec) =>
  Effect.gen(function* () {
    const context = yield* staffContext
    const urlId = yield* pathParam("id")
    const id = yield* existingId(spec.table, modelOf(spec), urlId)
    const write = yield* contentUpdate(spec, id, yield* readDocument(modelOf(spec), urlId))
    yield* inTransaction(write)
    return yield* render(context, spec, id, 200)
  })

const deleteHandler = (spec: ContentSpec) =>
  Effect.gen(function* () {
    yield* staffContext
    const id = yield* existingId(spec.table, modelOf(spec), yield* pathParam("id"))
    yield* asJsonApi(
      inTransaction(
        Effect.gen(function* () {
          if (spec.beforeDelete !== undefined) yield* spec.beforeDelete(id)
          yield* deleteRow(spec.table, id)
        })
      )
    )
    return noContent
  })

const named = { name: { kind: "string", max: 100, required: true } } as const
const nullableText = (max?: number) => ({ kind: "string", nullable: true, ...(max === undefined ? {} : { max }) }) as const
const choiceGroupRelation = {
  choice_group: { type: "ChoiceGroup", table: "review_choice_groups", column: "choice_group_id", required: true }
} as const

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
  create: (write, columns) => createTask(columns, write.many.checkers),
  update: (id, write, columns) => updateTask(id, columns, write.many.checkers),
  beforeDelete: deleteTaskSetting
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
  normalise: metadataAsJson,
  create: (_, columns) => createRecord(columns)
}

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
  create: (_, columns) => createTip(columns),
  update: (id, _, columns) => updateTip(id, columns)
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
    beforeDelete: checkChoiceGroupUnused
  },
  {
    path: "choices",
    table: "review_choices",
    definition: registry.Choice,
    rules: {
      attributes: {
        ...named,
        value: { kind: "string", max: 100 },
        color: nullableText(100),
        shortkeys: nullableText(100),
        require_alternative_value: { kind: "boolean" }
      },
      toOne: choiceGroupRelation
    },
    normalise: valueDefaultsToName,
    update: (id, _, columns) => updateNamedValue("review_choices", id, columns)
  },
  {
    path: "alternative-values",
    table: "review_alternative_values",
    definition: registry.AlternativeValue,
    rules: { attributes: { ...named, value: { kind: "string", max: 100 } }, toOne: choiceGroupRelation },
    normalise: valueDefaultsToName,
    update: (id, _, columns) => updateNamedValue("review_alternative_values", id, columns)
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
export const recordContentUpdate = (id: number, request: RequestDocument) => contentUpdate(taskRecordSpec, id, request)

export const contentRoutes = specs.flatMap(routesOf)
