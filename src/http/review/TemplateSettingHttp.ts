import { Effect } from "effect"
import { registry } from "../../domain/review/resources/index.ts"
import { templateSettingType } from "../../domain/review/resources/Tasks.ts"
import { templateSettingKind } from "../../domain/review/ReviewContent.ts"
import { updateRow } from "../../domain/review/ReviewRows.ts"
import { pathParam } from "../../transport/Http.ts"
import { readDocument } from "./Document.ts"
import { readOne } from "./Reader.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, staffContext } from "./Route.ts"
import { checkWrite, existingId } from "./Writer.ts"

const notFoundDetail = "No TaskTemplateSetting matches the given query."

/** Staff edit a task's template setting; the document's type must be the setting's concrete type. */
const updateSetting = Effect.gen(function* () {
  const context = yield* staffContext
  const urlId = yield* pathParam("id")
  const id = yield* existingId("review_template_settings", "TaskTemplateSetting", urlId)
  const kind = yield* templateSettingKind(id)
  const request = yield* readDocument(templateSettingType(kind), urlId)
  const media = {
    max_width: { kind: "integer", min: 1, nullable: true },
    max_height: { kind: "integer", min: 1, nullable: true },
    display_original_value: { kind: "boolean" }
  } as const
  const attributes = kind === "TEXT" ? {} : kind === "IFRAME" ? { ...media, ratio: { kind: "float", nullable: true } as const } : media
  const write = yield* checkWrite(request, { attributes }, false)
  yield* updateRow("review_template_settings", id, write.columns)
  return document(yield* readOne(registry, context, registry.TaskTemplateSetting, String(id), new URLSearchParams(), notFoundDetail))
})

export const templateSettingRoutes = [
  jsonApiRoute("PATCH", `${apiRoot}/task-template-settings/:id`, updateSetting, "Updates a task's template setting (staff only)")
]
