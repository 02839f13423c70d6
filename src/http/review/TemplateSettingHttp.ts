import { Effect } from "effect"
import { pathParam } from "../Http.ts"
import { readDocument } from "./Document.ts"
import { readOne } from "./Reader.ts"
import { registry } from "./resources/index.ts"
import { templateSettingType } from "./resources/Tasks.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, staffContext } from "./Route.ts"
import { checkWrite, existingId, updateRow } from "./Writer.ts"

const notFoundDetail = "No TaskTemplateSetting matches the given query."

/** Staff edit a task's template setting; the document's type must be the setting's concrete type. */
const updateSetting = Effect.gen(function* () {
  const context = yield* staffContext
  const urlId = yield* pathParam("id")
  const id = yield* existingId(context.sql, "review_template_settings", "TaskTemplateSetting", urlId)
  const [setting] = yield* context.sql<{ kind: string }>`SELECT kind FROM review_template_settings WHERE id = ${id}`
  const request = yield* readDocument(templateSettingType(setting!.kind), urlId)
  const media = {
    max_width: { kind: "integer", min: 1, nullable: true },
    max_height: { kind: "integer", min: 1, nullable: true },
    display_original_value: { kind: "boolean" }
  } as const
  const attributes = setting!.kind === "TEXT" ? {} : setting!.kind === "IFRAME" ? { ...media, ratio: { kind: "float", nullable: true } as const } : media
  const write = yield* checkWrite(context.sql, request, { attributes }, false)
  yield* updateRow(context.sql, "review_template_settings", id, write.columns)
  return document(yield* readOne(registry, context, registry.TaskTemplateSetting, String(id), new URLSearchParams(), notFoundDetail))
})

export const templateSettingRoutes = [
  jsonApiRoute("PATCH", `${apiRoot}/task-template-settings/:id`, updateSetting, "Updates a task's template setting (staff only)")
]
