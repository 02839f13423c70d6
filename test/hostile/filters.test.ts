import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { nameFilter } from "../../src/domain/NameFilter.ts"
import { eventually } from "../engine/helpers.ts"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"

const taskName = "org.icij.datashare.tasks.IndexTask@5b1c2f0e-8d1a-4a39-9f0e-3c1d2b4a5e6f"

describe("nameFilter: the reference's filters, matched without backtracking", () => {
  it("keeps the answers of ordinary filters", () => {
    const matches = (filter: string | undefined, name = taskName) => nameFilter(filter)(name)
    expect(matches(undefined)).toBe(true)
    expect(matches("")).toBe(true)
    expect(matches("IndexTask")).toBe(true)
    expect(matches("indextask")).toBe(true)
    expect(matches("BatchDownloadRunner")).toBe(false)
    expect(matches("ScanTask|IndexTask")).toBe(true)
    expect(matches("Index.*@")).toBe(true)
    expect(matches("Index.ask")).toBe(true)
    expect(matches("^org\\.icij")).toBe(true)
    expect(matches("^icij")).toBe(false)
    expect(matches("5e6f$")).toBe(true)
    expect(matches("^org.*5e6f$")).toBe(true)
    expect(matches("^quarry-ext$", "quarry-ext")).toBe(true)
    expect(matches("^quarry-ext$", "quarry-ext-fake")).toBe(false)
    expect(matches("a\\.b", "axb")).toBe(false)
    expect(matches("a.b", "axb")).toBe(true)
    expect(matches("(unclosed", "an (unclosed paren")).toBe(true)
  })

  it("answers a pathological pattern at once on long names", () => {
    const started = performance.now()
    const matches = nameFilter("^([a-zA-Z.]+)+X|" + ".*a".repeat(500) + "X")
    for (let i = 0; i < 100; i++) expect(matches("a".repeat(2_000))).toBe(false)
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe("Filters over HTTP", () => {
  layer(testServerLayer({ database: "pglite" }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a backtracking pattern answers in under 100 ms on /api/task/all and /api/plugins", () =>
      Effect.gen(function* () {
        yield* request("/api/task/batchUpdate/index/file", { method: "POST" })
        const all = yield* eventually(
          Effect.flatMap(request("/api/task/all"), bodyJson).pipe(
            Effect.map((body) => body as ReadonlyArray<{ name: string; state: string }>)
          ),
          (tasks) => tasks.length === 2 && tasks.every((task) => task.state !== "RUNNING")
        )
        const timed = (pathAndQuery: string) =>
          Effect.gen(function* () {
            const started = performance.now()
            const response = yield* request(pathAndQuery)
            const body = yield* bodyJson(response)
            return { status: response.status, body, millis: performance.now() - started }
          })
        const tasks = yield* timed(`/api/task/all?filter=${encodeURIComponent("^([a-zA-Z.]+)+X")}`)
        expect(tasks).toMatchObject({ status: 200, body: [] })
        expect(tasks.millis).toBeLessThan(100)
        const plugins = yield* timed(`/api/plugins?filter=${encodeURIComponent("^([a-z-]+)+X")}`)
        expect(plugins).toMatchObject({ status: 200, body: [] })
        expect(plugins.millis).toBeLessThan(100)
        const index = yield* timed("/api/task/all?filter=IndexTask")
        expect((index.body as ReadonlyArray<{ name: string }>).map((task) => task.name)).toEqual(
          all.filter((task) => task.name.includes("IndexTask")).map((task) => task.name)
        )
        expect(((yield* timed("/api/plugins?filter=ALERT")).body as ReadonlyArray<unknown>).length).toBeGreaterThan(0)
      })
    )
  })
})
