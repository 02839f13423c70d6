import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { resolveSettings } from "../../src/config/Settings.ts"

const resolve = (taskConcurrency: string) =>
  resolveSettings({ env: {}, cli: { taskConcurrency }, defaultSettingsFile: path.join(os.tmpdir(), "quarry-absent.properties") })

describe("taskConcurrency", () => {
  it.effect("gives the engine one limit per kind", () =>
    Effect.gen(function* () {
      const settings = yield* resolve("index=1, batchSearch=3")
      expect(settings.taskConcurrency).toEqual({ index: 1, batchSearch: 3 })
    })
  )

  it.effect("is empty when unset", () =>
    Effect.gen(function* () {
      const settings = yield* resolveSettings({ env: {}, cli: {}, defaultSettingsFile: path.join(os.tmpdir(), "quarry-absent.properties") })
      expect(settings.taskConcurrency).toEqual({})
    })
  )

  it.effect("refuses a malformed value, naming the option", () =>
    Effect.gen(function* () {
      for (const bad of ["index", "index=0", "index=x", "=2"]) {
        const result = yield* Effect.either(resolve(bad))
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result)) expect(result.left.message).toContain("taskConcurrency")
      }
    })
  )
})
