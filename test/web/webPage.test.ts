import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { generateCorpus } from "../fixtures/corpus.ts"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"
import { type Browser, chromiumFound, chromiumPath, launchBrowser, screenshot, seriousViolations } from "./browser.ts"
import { createReviewFixture, type ReviewFixture } from "./reviewFixture.ts"

const title = chromiumFound
  ? "the web page in Chromium against a real Quarry"
  : `the web page in Chromium (skipped: no Chromium at ${chromiumPath}; .ci/run installs Debian's chromium package)`

let browser: Browser | undefined
const page = (): Page => browser!.page
const step = <A>(body: () => Promise<A>) => Effect.promise(body)

/** Screenshot under test-results/ and an axe-core check with no serious or critical violation. */
const checkPage = async (name: string) => {
  await screenshot(page(), name)
  expect(await seriousViolations(page())).toEqual([])
}

describe.skipIf(!chromiumFound)(title, () => {
  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
  })

  layer(testServerLayer({ database: "pglite" }), { timeout: 60_000 })((it) => {
    let url = ""
    let review: ReviewFixture | undefined

    it.effect(
      "indexes the fixture corpus from the tasks page and shows its progress reach 100 %",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          url = server.url
          yield* step(() => generateCorpus(path.join(server.workDir, "corpus")))
          review = yield* step(() => createReviewFixture(url))
          const notePath = path.join(server.workDir, "corpus", "text").replace(/^\//, "")
          const note = yield* step(() =>
            fetch(`${url}/api/local-datashare/notes/${notePath}`, {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ note: "Unverified source", variant: "danger" })
            })
          )
          expect(note.status).toBe(201)
          yield* step(async () => {
            await page().goto(`${url}/#/tasks`)
            await page()
              .getByRole("button", { name: /Show the folders in .*data folder/ })
              .click()
            await page().getByRole("radio", { name: "corpus" }).check()
            await page().getByRole("button", { name: "Index into local-datashare" }).click()
            const indexTask = page().locator(".task", { hasText: "Index" })
            await indexTask.filter({ hasText: "DONE" }).waitFor({ timeout: 60_000 })
            expect(await indexTask.locator(".percent").textContent()).toBe("100 %")
            expect(await indexTask.locator("progress").getAttribute("value")).toBe("100")
            // The rate seen while the task ran, as a chart whose summary and table say the same.
            const rate = page().getByRole("figure", { name: "Indexing rate" })
            await rate.locator(".chart-summary", { hasText: /^Index \w+: \d+ files at [\d.]+ files\/s after [\d.]+ s\.$/ }).waitFor()
            expect(await rate.locator("tbody tr").count()).toBeGreaterThan(0)
            await page().getByLabel("Named-entity pipeline").selectOption("EMAIL")
            await page().getByRole("button", { name: "Find named entities" }).click()
            await page().locator(".task", { hasText: "NlpApp" }).filter({ hasText: "DONE" }).waitFor({ timeout: 60_000 })
            await checkPage("tasks")
            await page().getByRole("button", { name: "Clean finished tasks" }).click()
            await page().getByRole("list", { name: "Tasks" }).getByText("No tasks.").waitFor()
          })
        }),
      90_000
    )

    it.effect("searches, opens a document with the query highlighted, tags it and sees the tag facet update", () =>
      step(async () => {
        await page().goto(`${url}/#/search`)
        await page().getByLabel("Search query (Lucene syntax)").fill("offshore")
        await page().getByRole("button", { name: "Search", exact: true }).click()
        const result = page().locator(".result", { hasText: "plain-utf8.txt" })
        await result.waitFor()
        expect(await result.locator(".snippet mark").first().textContent()).toMatch(/offshore/i)
        expect(await page().getByRole("group", { name: "Content type" }).getByRole("checkbox").count()).toBeGreaterThan(0)
        await checkPage("search")

        await result.getByRole("link").click()
        await page().getByRole("heading", { level: 1, name: "plain-utf8.txt" }).waitFor()
        await page().locator(".count-line", { hasText: "occurrence" }).waitFor()
        expect(await page().getByRole("note").textContent()).toBe("Unverified source")
        expect(await page().locator(".document-text mark").first().textContent()).toBe("offshore")
        await page().getByLabel("Find in this document").fill("Zürich")
        await page().getByRole("button", { name: "Find", exact: true }).click()
        await page().locator(".count-line", { hasText: "1 occurrence of “Zürich”" }).waitFor()
        // Each word is searched for, not the phrase: both words are marked.
        await page().getByLabel("Find in this document").fill("offshore Zürich")
        await page().getByRole("button", { name: "Find", exact: true }).click()
        await page()
          .locator(".count-line", { hasText: /occurrences: \d+ of “offshore”, 1 of “Zürich”/ })
          .waitFor()
        expect(await page().locator(".document-text mark").allTextContents()).toEqual(expect.arrayContaining(["offshore", "Zürich"]))
        await page().getByRole("button", { name: "☆ Star" }).click()
        await page().getByRole("button", { name: "★ Starred" }).waitFor()
        await page().getByLabel("New tag").fill("evidence")
        await page().getByRole("button", { name: "Add tag" }).click()
        await page().getByRole("list", { name: "Tags" }).getByText("evidence").waitFor()
        await checkPage("document")

        await page().getByRole("link", { name: "← Back to the results" }).click()
        const tagBox = page()
          .getByRole("group", { name: "Tags" })
          .getByRole("checkbox", { name: /evidence/ })
        await tagBox.waitFor()
        expect(await page().getByRole("group", { name: "Tags" }).textContent()).toContain("evidence 1")
        await tagBox.check()
        await page().getByText("Results 1–1 of 1").waitFor()
        expect(await page().locator(".result").count()).toBe(1)
      })
    )

    it.effect("filters the documents by a named entity of the facets", () =>
      step(async () => {
        await page().goto(`${url}/#/search`)
        const addresses = page().getByRole("group", { name: "E-mail addresses" })
        await addresses.getByRole("checkbox", { name: /alice@example\.org/ }).check()
        await page().locator(".result", { hasText: "Contract for the harbour" }).waitFor()
        expect(await page().locator(".result").count()).toBeLessThan(5)
        expect(await addresses.getByRole("checkbox", { name: /alice@example\.org/ }).isChecked()).toBe(true)
      })
    )

    it.effect("runs a batch search from a CSV file and downloads its results", () =>
      step(async () => {
        await page().goto(`${url}/#/batch`)
        await page().getByLabel("Name", { exact: true }).fill("Harbour names")
        await page()
          .getByLabel("Queries (CSV file, one query per line)")
          .setInputFiles({
            name: "queries.csv",
            mimeType: "text/csv",
            buffer: Buffer.from("harbour\nferry\nnothing-matches-this\n")
          })
        await page().getByRole("button", { name: "Run on local-datashare" }).click()
        const row = page().getByRole("row", { name: /Harbour names/ })
        await row.getByText("SUCCESS").waitFor({ timeout: 30_000 })
        await checkPage("batch-searches")

        await row.getByRole("link", { name: "Harbour names" }).click()
        await page().getByRole("heading", { level: 1, name: "Harbour names" }).waitFor()
        await page().getByRole("table").locator("tbody tr").first().waitFor()
        expect(await page().getByRole("table").textContent()).toContain("ferry")
        const [download] = await Promise.all([
          page().waitForEvent("download"),
          page().getByRole("link", { name: "Download the results (CSV)" }).click()
        ])
        const csv = await fs.readFile((await download.path())!, "utf8")
        expect(csv).toMatch(/^"harbour",/m)
        expect(csv).toMatch(/^"ferry",/m)
        await checkPage("batch-search")

        await page().getByRole("button", { name: "Copy Harbour names" }).click()
        const copy = page().getByRole("row", { name: /Harbour names \(copy\)/ })
        await copy.getByText("SUCCESS").waitFor({ timeout: 30_000 })
        await copy.getByRole("button", { name: "Delete Harbour names (copy)" }).click()
        await copy.waitFor({ state: "detached" })
        expect(
          await page()
            .getByRole("row", { name: /Harbour names/ })
            .count()
        ).toBe(1)
      })
    )

    it.effect("reviews three records with the keyboard shortcuts of the choices", () =>
      step(async () => {
        await page().goto(`${url}/#/review`)
        await page().getByRole("link", { name: "Company addresses", exact: true }).click()
        await page().getByText("Round 1: 0 of 3 reviewed").waitFor()
        await page().locator("[data-review]").first().focus()
        for (const key of ["c", "w", "c"]) {
          const before = await page().locator(".record.reviewed").count()
          await page().keyboard.press(key)
          await page().locator(".record.reviewed").nth(before).waitFor()
        }
        await page().getByText("Round 1: 3 of 3 reviewed").waitFor()
        const first = page().locator("[data-review]").first()
        await first.getByLabel("Note").fill("Street number missing")
        await first.getByRole("button", { name: "Save the note" }).click()
        await page()
          .locator("[data-review]")
          .first()
          .getByRole("button", { name: "Bookmarked" })
          .or(first.getByRole("button", { name: "Bookmark" }))
          .first()
          .waitFor()
        await page().locator("[data-review]").first().getByRole("button", { name: "Bookmark", exact: true }).click()
        await page().locator("[data-review]").first().getByRole("button", { name: "Bookmarked" }).waitFor()
        expect(await page().locator("[data-review]").first().getByLabel("Note").inputValue()).toBe("Street number missing")
        await checkPage("review")
        const answer = (await (
          await fetch(`${url}/api/v1/task-record-reviews/?filter[task_record__task]=${review!.task}&sort=task_record__id`)
        ).json()) as {
          data: ReadonlyArray<{ relationships: { choice: { data: { id: string } | null } } }>
        }
        const { correct, wrong } = review!.choices
        expect(answer.data.map((one) => one.relationships.choice.data?.id)).toEqual([correct, wrong, correct])
      })
    )

    it.effect("lays every page out in one column at 390 px without horizontal scrolling", () =>
      step(async () => {
        await page().setViewportSize({ width: 390, height: 844 })
        await page().goto(`${url}/#/search?q=harbour`)
        await page().locator(".result").first().waitFor()
        // The filters are folded so that the results are in view.
        expect(await page().locator(".facets details").getAttribute("open")).toBeNull()
        const documentHref = await page().locator(".result a").first().getAttribute("href")
        const pages: ReadonlyArray<readonly [string, string, string]> = [
          ["search", "#/search?q=harbour", ".result"],
          ["document", documentHref!, ".document-text"],
          ["batch-searches", "#/batch", "table"],
          ["tasks", "#/tasks", ".task"],
          ["review", `#/review/${review!.task}`, "[data-review]"],
          ["review-admin", "#/review", ".admin .admin-form"],
          ["review-statistics", `#/review/${review!.task}/statistics`, ".chart canvas"]
        ]
        for (const [name, hash, ready] of pages) {
          await page().goto(`${url}/${hash}`)
          await page().locator(ready).first().waitFor()
          expect(await page().evaluate("document.documentElement.scrollWidth"), name).toBeLessThanOrEqual(390)
          await checkPage(`${name}-390px`)
        }
        await page().setViewportSize({ width: 1280, height: 900 })
      })
    )
  })

  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 60_000 })((it) => {
    it.effect("asks for a sign-in in SERVER mode, with a password or with an API key", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* addUser("ann", "s3cret", { projects: ["leaks"] })
        const signedIn = page().getByRole("link", { name: "Sign out ann" })
        yield* step(async () => {
          const created = await fetch(`${server.url}/api/key/ann`, { method: "PUT", headers: { authorization: basic("ann", "s3cret") } })
          const { apiKey } = (await created.json()) as { apiKey: string }
          await page().context().clearCookies()
          await page().goto(`${server.url}/#/batch`)
          await page().getByRole("heading", { name: "Sign in to Quarry" }).waitFor()
          expect(await page().getByRole("navigation", { name: "Main" }).isHidden()).toBe(true)
          await checkPage("sign-in")
          await page().getByLabel("Login", { exact: true }).fill("ann")
          await page().getByLabel("Password", { exact: true }).fill("wrong")
          await page().getByRole("button", { name: "Sign in", exact: true }).click()
          await page().getByText("Wrong login or password.").waitFor()
          await page().getByLabel("Password", { exact: true }).fill("s3cret")
          await page().getByRole("button", { name: "Sign in", exact: true }).click()
          await signedIn.waitFor()
          await page().getByRole("heading", { level: 1, name: "Batch searches" }).waitFor()

          await page().context().clearCookies()
          await page().reload()
          await page().getByLabel("API key", { exact: true }).fill(apiKey)
          await page().getByRole("button", { name: "Sign in with the key" }).click()
          await signedIn.waitFor()
          expect(await page().getByLabel("Project").inputValue()).toBe("leaks")
        })
      })
    )
  })
})
