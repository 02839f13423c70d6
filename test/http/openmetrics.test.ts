import { createRequire } from "node:module"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, bodyText, request, testServerLayer } from "../helpers/server.ts"

// The parser ships no type declarations; its output is decoded with a schema instead of being trusted.
const parser: unknown = createRequire(import.meta.url)("parse-prometheus-text-format")

const Families = Schema.Array(
  Schema.Struct({
    name: Schema.String,
    help: Schema.String,
    type: Schema.String,
    metrics: Schema.Array(
      Schema.Struct({
        value: Schema.String,
        labels: Schema.Record({ key: Schema.String, value: Schema.String }),
        timestamp_ms: Schema.String
      })
    )
  })
)

const parseOpenMetrics = (text: string) => {
  expect(typeof parser).toBe("function")
  return Schema.decodeUnknownSync(Families)(typeof parser === "function" ? parser(text) : undefined)
}

const resources = ["database", "index", "databus", "document_queue_status"] as const

/** A scrape: the parsed families, the raw text and the time window in which it was answered. */
const scrape = Effect.gen(function* () {
  const before = Date.now()
  const response = yield* request("/api/status?format=openmetrics")
  const text = yield* bodyText(response)
  const after = Date.now()
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toBe("text/plain;version=0.0.4")
  return { families: parseOpenMetrics(text), text, before, after }
})

// `layer` rather than `it.layer`: @effect/vitest's `it.layer` is rebound by each call, so a later suite would
// also rebuild (and nest under) the servers of the suites before it.
for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`GET /api/status?format=openmetrics on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("is one gauge family `datashare` with a sample per resource, valued and timestamped", () =>
        Effect.gen(function* () {
          const { families, text, before, after } = yield* scrape
          expect(text.endsWith("\n")).toBe(true)
          expect(families).toHaveLength(1)
          const family = families[0]!
          expect(family).toMatchObject({ name: "datashare", help: "The datashare resources status", type: "GAUGE" })
          expect(family.metrics).toHaveLength(5)
          expect(family.metrics.map((metric) => [metric.labels, metric.value])).toEqual([
            ...resources.map((resource) => [{ status: "OK", resource }, "1"]),
            [{ resource: "document_queue_size" }, "0"]
          ])
          const timestamps = new Set(family.metrics.map((metric) => Number(metric.timestamp_ms)))
          expect(timestamps.size).toBe(1)
          const [timestamp] = timestamps
          expect(timestamp).toBeGreaterThanOrEqual(before)
          expect(timestamp).toBeLessThanOrEqual(after)
        })
      )

      it.effect("agrees with the JSON report", () =>
        Effect.gen(function* () {
          const report = yield* bodyJson(yield* request("/api/status"))
          const { families } = yield* scrape
          const samples = Object.fromEntries(families[0]!.metrics.map((metric) => [metric.labels.resource, Number(metric.value)]))
          expect(samples).toEqual({
            database: 1,
            index: 1,
            databus: 1,
            document_queue_status: 1,
            document_queue_size: 0
          })
          expect(report).toMatchObject({ database: true, index: true, databus: true, document_queue_status: true, document_queue_size: 0 })
        })
      )
    })

    layer(testServerLayer({ database, cli: { platform: "production" } }))((it) => {
      it.effect("starts every label set with the environment when the platform setting is set", () =>
        Effect.gen(function* () {
          const { families, text } = yield* scrape
          const samples = text.split("\n").filter((line) => line.startsWith("datashare"))
          expect(samples).toHaveLength(5)
          for (const line of samples) expect(line.startsWith('datashare{environment="production",')).toBe(true)
          expect(families[0]!.metrics.map((metric) => metric.labels)).toEqual([
            ...resources.map((resource) => ({ environment: "production", status: "OK", resource })),
            { environment: "production", resource: "document_queue_size" }
          ])
        })
      )
    })
  })
}
