import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { isolatedHome, runQuarry } from "../cli/quarryProcess.ts"
import { postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { runSql } from "../review/helpers.ts"
import { indexCorpus, reviewSetup, runBatchSearch, storedHits, taskRecords } from "./helpers.ts"

// Each run starts tsx and opens the database: seconds each on a loaded machine.
const spawnTimeout = 180_000

describe("quarry review: command line checks", () => {
  it.scoped(
    "refuses a malformed command line before opening any database",
    () =>
      Effect.gen(function* () {
        const home = yield* isolatedHome
        // At once: each is refused before any database is opened.
        const [noTarget, badCount, noTag] = yield* Effect.all(
          [
            runQuarry(["review", "from-batch-search"], home),
            runQuarry(["review", "from-batch-search", "some-uuid", "--maxHitsPerQuery", "0"], home),
            runQuarry(["review", "tag-documents", "3"], home)
          ],
          { concurrency: "unbounded" }
        )
        expect(noTarget.code).toBe(2)
        expect(noTarget.stderr).toMatch(/^quarry: usage: quarry review from-batch-search/)
        expect(badCount).toMatchObject({ code: 2, stderr: "quarry: --maxHitsPerQuery takes a positive integer\n" })
        expect(noTag).toMatchObject({ code: 2, stderr: "quarry: review tag-documents needs --tag <tag>\n" })
      }),
    spawnTimeout
  )
})

// The server and the command share a PostgreSQL database (an embedded one is locked by the server that opened it).
describe.skipIf(!postgresAvailable)(`quarry review on PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`, () => {
  layer(testServerLayer({ database: "postgres", cli: { mode: "SERVER" } }), { timeout: spawnTimeout, excludeTestServices: true })((it) => {
    it.scoped("sends a batch search's hits to a new task, adds only new hits again, and tags confirmed documents", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const home = yield* isolatedHome
        yield* indexCorpus
        const setup = yield* reviewSetup("cli")
        const uuid = yield* runBatchSearch(setup.admin, ["contract", "offshore"])
        const hits = yield* storedHits(uuid)
        const settings = ["--mode", "SERVER", `--dataSourceUrl=${server.settings.dataSourceUrl}`, "--user", setup.admin.login]
        const created = yield* runQuarry(
          [
            "review",
            "from-batch-search",
            uuid,
            "--reviewProject",
            String(setup.reviewProject),
            "--choiceGroup",
            String(setup.group),
            "--checkers",
            `${setup.alice.login},${setup.bob.login}`,
            "--queries",
            "contract",
            ...settings
          ],
          home
        )
        expect(created.stderr).toBe("")
        const [, task] = /^task (\d+) created: 2 records added, 0 hits skipped\n$/.exec(created.stdout) ?? []
        expect(task).toBeDefined()
        const extended = yield* runQuarry(["review", "from-batch-search", uuid, "--task", task!, ...settings], home)
        expect(extended).toMatchObject({ code: 0, stdout: `task ${task} extended: ${hits.length - 2} records added, 2 hits skipped\n` })
        const records = yield* taskRecords(Number(task))
        expect(records.map((record) => `${record.originalValue} ${record.uid}`).sort()).toEqual(
          hits.map((hit) => `${hit.query} ${hit.docId}`).sort()
        )

        yield* runSql(
          (sql) =>
            sql`UPDATE review_task_record_reviews SET status = 'DONE', choice_id = ${setup.correct} WHERE task_record_id = ${records[0]!.id}`
        )
        const tagged = yield* runQuarry(
          ["review", "tag-documents", task!, "--tag", "cli-checked", "--confirming", "Correct", ...settings],
          home
        )
        expect(tagged).toMatchObject({ code: 0, stdout: "1 documents of 1 confirmed records tagged cli-checked\n" })
        const tags = yield* runSql((sql) => sql<{ label: string }>`SELECT label FROM document_tags WHERE doc_id = ${records[0]!.uid}`)
        expect(tags.map((tag) => tag.label)).toContain("cli-checked")

        const refused = yield* runQuarry(
          [
            "review",
            "from-batch-search",
            uuid,
            "--task",
            task!,
            "--mode",
            "SERVER",
            `--dataSourceUrl=${server.settings.dataSourceUrl}`,
            "--user",
            setup.alice.login
          ],
          home
        )
        expect(refused).toMatchObject({
          code: 2,
          stderr: "quarry: only staff may send batch searches to review or tag reviewed documents\n"
        })
      })
    )
  })
})
