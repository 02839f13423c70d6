import { Effect, Schema } from "effect"
import { BuildInfo } from "../../config/BuildInfo.ts"
import { publicSettings, Settings, updateSettings } from "../../config/Settings.ts"
import { allowMethods, empty, json, jsonBody } from "../../transport/Http.ts"
import { BadRequest, Forbidden } from "../../domain/RequestErrors.ts"
import { publicRoute, route } from "../Router.ts"

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })

/** Front ends send booleans and numbers as they are; settings are strings, as in a properties file. */
const SettingsPatch = Schema.Struct({
  data: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean) })
})

const patchSettings = Effect.gen(function* () {
  const settings = yield* Settings
  if (settings.mode === "SERVER") return yield* new Forbidden({ message: "settings cannot be changed in SERVER mode" })
  const { data } = yield* jsonBody(SettingsPatch)
  const changes = Object.fromEntries(Object.entries(data).map(([name, value]) => [name, String(value)]))
  yield* updateSettings(settings, changes).pipe(
    Effect.catchTag("InvalidSetting", (error) => Effect.fail(new BadRequest({ message: error.message })))
  )
  return empty()
})

export const settingsRoutes = [
  publicRoute("GET", "/settings", Effect.flatMap(Settings, publicSettings).pipe(Effect.map((values) => json(values))), {
    summary: "The running settings, without those whose name contains Address, Secret, Url or Key, plus pathSeparator",
    tag: "settings",
    response: StringMap
  }),
  publicRoute(
    "GET",
    "/version",
    Effect.map(BuildInfo, (info) => json(info.properties)),
    {
      summary: "Version of this installation: git.* keys (git.build.version, git.commit.id, git.branch…)",
      tag: "settings",
      response: StringMap
    }
  ),
  route("OPTIONS", "/api/settings", Effect.succeed(allowMethods("OPTIONS, PATCH", { "Access-Control-Allow-Headers": "content-type" })), {
    summary: "Preflight: allows PATCH",
    tag: "settings"
  }),
  route("PATCH", "/api/settings", patchSettings, {
    summary: "Changes settings and saves them to the settings file; 403 in SERVER mode, 404 when the file cannot be written",
    tag: "settings",
    requestBody: SettingsPatch
  })
]
