import { Effect, Schema } from "effect"
import { Settings } from "../../config/Settings.ts"
import { Health, toOpenMetrics } from "../../domain/status/Health.ts"
import { json, queryParam, text } from "../../transport/Http.ts"
import { route } from "../Router.ts"

const StatusReportSchema = Schema.Struct({
  database: Schema.Boolean,
  index: Schema.Boolean,
  databus: Schema.Boolean,
  document_queue_status: Schema.Boolean,
  document_queue_size: Schema.Number
})

export const statusRoutes = [
  route(
    "GET",
    "/api/status",
    Effect.gen(function* () {
      const report = yield* (yield* Health).status
      if ((yield* queryParam("format")) !== "openmetrics") return json(report)
      const settings = yield* Settings
      return text(toOpenMetrics(report, Date.now(), settings.platform), "text/plain;version=0.0.4")
    }),
    {
      summary: "Health of the database, the search index, the data bus and the document queue",
      tag: "status",
      query: { format: "openmetrics for the OpenMetrics text format" },
      response: StatusReportSchema
    }
  )
]
