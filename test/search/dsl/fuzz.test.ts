import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { corpusLayer, send } from "./corpus.ts"
import { randomBody, randomPath, seeded } from "./generate.ts"

/** Bodies per database: every one answered 200, or 400 with an ES error body (never 500, never a SQL message). */
const bodies = Number(process.env.FUZZ_BODIES ?? 10_000)
const seed = Number(process.env.FUZZ_SEED ?? 20_240_210)

const isEsError = (body: unknown) => {
  const error = (body as { error?: { type?: unknown; reason?: unknown; root_cause?: unknown } } | undefined)?.error
  return typeof error?.type === "string" && typeof error.reason === "string" && Array.isArray(error.root_cause) && (body as { status?: unknown }).status === 400
}

/** Words of PostgreSQL's error messages that must never reach a client. */
const sqlLeak = /syntax error at|relation "|column "|operator does not exist|function .* does not exist|invalid input syntax|SQLSTATE|search_records/i

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`search engine fuzz on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(corpusLayer(database), { timeout: 60_000 })((it) => {
      it.effect(`${bodies} generated bodies (seed ${seed}) are each answered 200 or an ES-shaped 400`, () =>
        Effect.gen(function* () {
          const random = seeded(seed + (database === "postgres" ? 1 : 0))
          const failures: Array<string> = []
          const statuses = new Map<number, number>()
          for (let i = 0; i < bodies; i++) {
            const path = randomPath(random)
            const body = randomBody(random)
            const response = yield* send(path, body)
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
            const text = JSON.stringify(response.body)
            const fine = (response.status === 200 || (response.status === 400 && isEsError(response.body))) && !sqlLeak.test(text)
            if (!fine && failures.length < 5) failures.push(`${path} ${JSON.stringify(body)} → ${response.status} ${text.slice(0, 300)}`)
          }
          expect(failures).toEqual([])
          // Both kinds of answers occur: the generator reaches the engine as well as its refusals.
          expect(statuses.get(200) ?? 0).toBeGreaterThan(bodies / 10)
          expect(statuses.get(400) ?? 0).toBeGreaterThan(bodies / 10)
        }),
        { timeout: 600_000 }
      )
    })
  })
}
