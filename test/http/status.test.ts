import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`GET /api/status on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    // layer(), not it.layer: it.layer rebinds `it`, nesting the next database's server on this one.
    layer(testServerLayer({ database }))((it) => {
      it.effect("reports every resource up as JSON", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/status")
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("application/json;charset=UTF-8")
          expect(yield* bodyJson(response)).toEqual({
            database: true,
            index: true,
            databus: true,
            document_queue_status: true,
            document_queue_size: 0
          })
        })
      )
    })
  })
}
