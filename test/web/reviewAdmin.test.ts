import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"
import { type Browser, chromiumFound, chromiumPath, launchBrowser, screenshot, seriousViolations } from "./browser.ts"

const title = chromiumFound
  ? "review administration on the web page in Chromium"
  : `review administration on the web page (skipped: no Chromium at ${chromiumPath}; .ci/run installs Debian's chromium package)`

let browser: Browser | undefined
const page = (): Page => browser!.page
const step = <A>(body: () => Promise<A>) => Effect.promise(body)

const checkPage = async (name: string) => {
  await screenshot(page(), name)
  expect(await seriousViolations(page())).toEqual([])
}

/** Polls `read` every 200 ms until `done` holds (at most 60 s). */
const until = async <A>(read: () => Promise<A>, done: (value: A) => boolean) => {
  for (let attempt = 0; attempt < 300; attempt++) {
    const value = await read()
    if (done(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error("Timed out")
}

/** Two text files indexed into local-datashare, then a finished batch search "Ships" over them; answers its uuid. */
const indexAndBatchSearch = async (url: string, dataDir: string) => {
  await fs.mkdir(path.join(dataDir, "ships"), { recursive: true })
  await fs.writeFile(path.join(dataDir, "ships", "manifest.txt"), "The ferry Aurora left the harbour at dawn.\n")
  await fs.writeFile(path.join(dataDir, "ships", "log.txt"), "A ferry and a tug waited in the harbour.\n")
  const tasks = (await (
    await fetch(`${url}/api/task/batchUpdate/index/file`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
  ).json()) as ReadonlyArray<{ name: string }>
  for (const task of tasks) {
    await until(
      async () => ((await (await fetch(`${url}/api/task/${encodeURIComponent(task.name)}`)).json()) as { state: string }).state,
      (state) => state !== "RUNNING"
    )
  }
  const form = new FormData()
  form.append("name", "Ships")
  form.append("csvFile", new Blob(["ferry\ntug\n"], { type: "text/csv" }), "queries.csv")
  const uuid = await (await fetch(`${url}/api/batch/search/local-datashare`, { method: "POST", body: form })).text()
  await until(
    async () => ((await (await fetch(`${url}/api/batch/search/${uuid}`)).json()) as { state: string }).state,
    (state) => state === "SUCCESS"
  )
  return uuid
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

    it.effect(
      "a staff user creates a project, a choice group with choices, a task, and imports records from CSV",
      () =>
        Effect.gen(function* () {
          url = (yield* TestServer).url
          yield* step(async () => {
            await page().goto(`${url}/#/review`)
            const admin = page().getByRole("region", { name: "Review administration" })
            await admin.waitFor()
            await checkPage("review-admin")

            const projectForm = admin.getByRole("form", { name: "New review project" })
            await projectForm.getByLabel("Project name").fill("Harbour checks")
            await projectForm.getByRole("button", { name: "Create the project" }).click()
            await page().getByRole("status").getByText("Project “Harbour checks” created.").waitFor()
            // The page is read again, and the focus is back in the form just used.
            await page()
              .getByRole("form", { name: "New review project" })
              .getByLabel("Project name")
              .and(page().locator(":focus"))
              .waitFor()

            const groupForm = page().getByRole("form", { name: "New choice group" })
            await groupForm.getByLabel("Choice group name").fill("Verdict")
            await groupForm.getByRole("button", { name: "Create the choice group" }).click()
            await page().getByRole("status").getByText("Choice group “Verdict” created.").waitFor()

            for (const [name, value, key] of [
              ["Confirmed", "confirmed", "y"],
              ["Rejected", "rejected", "n"]
            ] as const) {
              const choiceForm = page().getByRole("form", { name: "Add a choice" })
              await choiceForm.getByLabel("Choice group").selectOption({ label: "Verdict" })
              await choiceForm.getByLabel("Choice name").fill(name)
              await choiceForm.getByLabel("Value", { exact: true }).fill(value)
              await choiceForm.getByLabel("Short keys").fill(key)
              await choiceForm.getByRole("button", { name: "Add the choice" }).click()
              await page().getByRole("status").getByText(`Choice “${name}” added.`).waitFor()
            }
            const alternativeForm = page().getByRole("form", { name: "Add an alternative value" })
            await alternativeForm.getByLabel("Alternative name").fill("Other ship")
            await alternativeForm.getByRole("button", { name: "Add the alternative value" }).click()
            await page().getByRole("status").getByText("Alternative value “Other ship” added.").waitFor()
            const overview = page().getByRole("region", { name: "Choice groups" })
            await overview.getByText("Choices: Confirmed (value confirmed, keys y); Rejected (value rejected, keys n).").waitFor()
            await overview.getByText("Alternative values: Other ship.").waitFor()

            // A choice is edited from its current values.
            const editForm = page().getByRole("form", { name: "Edit a choice" })
            await editForm.getByLabel("Choice to edit").selectOption({ label: "Rejected" })
            expect(await editForm.getByLabel("Short keys").inputValue()).toBe("n")
            await editForm.getByLabel("Short keys").fill("n, x")
            await editForm.getByLabel("Needs an alternative value").check()
            await editForm.getByRole("button", { name: "Save the choice" }).click()
            await overview.getByText("Rejected (value rejected, keys n, x, needs an alternative value)", { exact: false }).waitFor()

            const renameForm = page().getByRole("form", { name: "Rename a project" })
            await renameForm.getByLabel("Project to rename").selectOption({ label: "Harbour checks" })
            await renameForm.getByLabel("New name").fill("Harbour checks 2026")
            await renameForm.getByRole("button", { name: "Rename the project" }).click()
            await page().getByRole("status").getByText("Project renamed “Harbour checks 2026”.").waitFor()

            const taskForm = page().getByRole("form", { name: "New review task" })
            await taskForm.getByLabel("Task name").fill("Ship names")
            await taskForm.getByLabel("Review project").selectOption({ label: "Harbour checks 2026" })
            await taskForm.getByLabel("Choices from").selectOption({ label: "Verdict" })
            await taskForm.getByLabel("Checkers").selectOption({ index: 0 })
            await taskForm.getByLabel("Rounds").fill("2")
            await taskForm.getByLabel("Priority").fill("3")
            await taskForm.getByLabel("Template").selectOption({ label: "Media (image or video)" })
            await taskForm.getByRole("button", { name: "Create the task" }).click()
            await page().getByRole("link", { name: "Ship names", exact: true }).waitFor()

            const importForm = page().getByRole("form", { name: "Import records from CSV" })
            await importForm.getByLabel("Into the task").selectOption({ label: "Ship names" })
            await importForm.getByLabel("CSV file").setInputFiles({
              name: "ships.csv",
              mimeType: "text/csv",
              buffer: Buffer.from('uid,original_value,predicted_value\ns1,Aurora,AURORA\ns2,"Tug, small",TUG\n')
            })
            const preview = importForm.getByRole("table", { name: "Preview: the first 2 rows" })
            await preview.waitFor()
            expect(await preview.locator("tbody tr").nth(1).locator("td").first().textContent()).toBe("s2")
            expect(await preview.locator("tbody tr").nth(1).locator("td").nth(1).textContent()).toBe("Tug, small")
            await importForm.getByRole("button", { name: "Import the records" }).click()
            await importForm.getByText("Imported ships.csv: 2 records created, 0 updated.").waitFor()
            await checkPage("review-admin-imported")

            // The task's status is edited from its card.
            const card = page().locator(".card", { has: page().getByRole("link", { name: "Ship names", exact: true }) })
            await card.getByText("Manage this task").click()
            await card.getByRole("form", { name: "Edit Ship names" }).getByLabel("Status").selectOption("LOCKED")
            await card.getByRole("button", { name: "Save the task" }).click()
            await page().getByRole("status").getByText("Task “Ship names” saved.").waitFor()
          })
          const tasks = yield* step(
            async () =>
              (await (await fetch(`${url}/api/v1/tasks/?include=choiceGroup.choices`)).json()) as {
                data: ReadonlyArray<{
                  attributes: { name: string; rounds: number; priority: number; status: string; templateType: string }
                }>
                included: ReadonlyArray<{ type: string; attributes: { name: string; shortkeys: string } }>
              }
          )
          expect(tasks.data.map((task) => task.attributes)).toEqual([
            expect.objectContaining({ name: "Ship names", rounds: 2, priority: 3, status: "LOCKED", templateType: "MEDIA" })
          ])
          expect(
            tasks.included.filter((one) => one.type === "Choice").map((choice) => [choice.attributes.name, choice.attributes.shortkeys])
          ).toEqual([
            ["Confirmed", "y"],
            ["Rejected", "n, x"]
          ])
        }),
      60_000
    )

    it.effect(
      "sends a batch search to review, reviews it, tags the confirmed documents and finds them by the tag",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const uuid = yield* step(() => indexAndBatchSearch(url, server.workDir))
          yield* step(async () => {
            await page().goto(`${url}/#/batch/${uuid}`)
            const form = page().getByRole("form", { name: "Send to review" })
            await form.waitFor()
            await form.getByLabel("Task name").fill("Ferries")
            await form.getByLabel("Review project").selectOption({ label: "Harbour checks 2026" })
            await form.getByLabel("Choices from").selectOption({ label: "Verdict" })
            await form.getByLabel("Checkers").selectOption({ index: 0 })
            await form.getByRole("checkbox", { name: "tug" }).uncheck()
            await checkPage("batch-send-to-review")
            await form.getByRole("button", { name: "Send to review" }).click()
            await form.getByText("2 records made, 0 skipped.").waitFor()
            // Sent again into the same task, the hits already there are skipped.
            await form.getByRole("radio", { name: "An existing task" }).check()
            expect(await form.getByLabel("Task name").isVisible()).toBe(false)
            await form.getByLabel("Existing task", { exact: true }).selectOption({ label: "Ferries" })
            await form.getByRole("button", { name: "Send to review" }).click()
            await form.getByText("0 records made, 2 skipped.").waitFor()

            await form.getByRole("link", { name: "Open the task “Ferries”" }).click()
            await page().getByText("Round 1: 0 of 2 reviewed").waitFor()
            await page().locator("[data-review]").first().focus()
            for (const key of ["y", "y"]) {
              const before = await page().locator(".record.reviewed").count()
              await page().keyboard.press(key)
              await page().locator(".record.reviewed").nth(before).waitFor()
            }

            await page().goto(`${url}/#/review`)
            // Chart.js must draw under the page's Content-Security-Policy: the browser reports any refusal on the console.
            const refusals: Array<string> = []
            page().on("console", (message) => message.text().includes("Content Security Policy") && refusals.push(message.text()))
            await page().getByRole("link", { name: "Statistics of Ferries" }).click()
            const progress = page().getByRole("figure", { name: "Progress per round and checker" })
            await progress.getByText("2 of 2 reviews done (100 %).").waitFor()
            const choices = page().getByRole("figure", { name: "Choices made" })
            await choices.getByText("Confirmed: 2, Rejected: 0.").waitFor()
            expect(await choices.locator("tbody tr").first().textContent()).toBe("Confirmed2")
            await page()
              .getByRole("figure", { name: "Disagreements" })
              .getByText("0 of 2 reviewed records (0 %) have checkers who disagree.")
              .waitFor()
            expect(await page().getByRole("figure", { name: "Review activity per day" }).locator(".chart-summary").textContent()).toMatch(
              /^\d+ actions? over 1 day/
            )
            // Each chart drew something: its canvas has painted pixels, and its accessible name is the summary.
            for (const canvas of await page().locator(".chart canvas").all()) {
              expect(
                await canvas.evaluate((element) => (element as unknown as { toDataURL: () => string }).toDataURL().length)
              ).toBeGreaterThan(2000)
            }
            expect(await progress.getByRole("img").getAttribute("aria-label")).toBe(
              "Progress per round and checker. 2 of 2 reviews done (100 %)."
            )
            await progress.getByText("The numbers as a table").click()
            await progress.getByRole("table").waitFor()
            await checkPage("review-statistics")
            expect(refusals).toEqual([])

            await page().goto(`${url}/#/review`)
            const card = page().locator(".card", { has: page().getByRole("link", { name: "Ferries", exact: true }) })
            await card.getByText("Manage this task").click()
            const tagForm = card.getByRole("form", { name: "Tag confirmed documents of Ferries" })
            await tagForm.getByLabel("Tag").fill("ferry-confirmed")
            await tagForm.getByLabel("Confirming values").fill("confirmed")
            await tagForm.getByRole("button", { name: "Tag the documents" }).click()
            await tagForm.getByText("2 documents of 2 confirmed records tagged “ferry-confirmed”.").waitFor()
            await checkPage("review-tag-documents")
            await tagForm.getByRole("link", { name: "Search the documents tagged “ferry-confirmed”" }).click()
            await page().getByText("Results 1–2 of 2").waitFor()
            expect(await page().locator(".result").count()).toBe(2)
          })
        }),
      90_000
    )
  })

  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 60_000 })((it) => {
    it.effect("a user who is not staff sees no administration controls, and the API refuses their writes and uploads with 403", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* addUser("ben", "s3cret", { projects: ["local-datashare"] })
        yield* step(async () => {
          await page().context().clearCookies()
          await page().goto(`${server.url}/#/review`)
          await page().getByLabel("Login", { exact: true }).fill("ben")
          await page().getByLabel("Password", { exact: true }).fill("s3cret")
          await page().getByRole("button", { name: "Sign in", exact: true }).click()
          await page().getByRole("heading", { level: 1, name: "Review" }).waitFor()
          await page().getByText("No review tasks are assigned to you.").waitFor()
          expect(await page().getByRole("region", { name: "Review administration" }).count()).toBe(0)
          for (const name of [
            "Create the project",
            "Rename the choice group",
            "Save the alternative value",
            "Import the alternative values",
            "Attach the media"
          ]) {
            expect(await page().getByRole("button", { name }).count()).toBe(0)
          }
          await checkPage("review-not-staff")
          const authorization = basic("ben", "s3cret")
          const write = (method: string, path: string, type: string, attributes: Readonly<Record<string, unknown>>) =>
            fetch(`${server.url}/api/v1/${path}/`, {
              method,
              headers: { authorization, "content-type": "application/vnd.api+json" },
              body: JSON.stringify({ data: { type, ...(method === "PATCH" ? { id: "1" } : {}), attributes } })
            })
          const upload = (path: string, reference: string, fileField: string, fileName: string) => {
            const form = new FormData()
            form.append(reference, "1")
            form.append(fileField, new Blob(["name\na\n"]), fileName)
            return fetch(`${server.url}/api/v1/${path}/`, { method: "POST", headers: { authorization }, body: form })
          }
          const refusals = await Promise.all([
            write("POST", "projects", "Project", { name: "Not mine" }),
            write("PATCH", "choice-groups/1", "ChoiceGroup", { name: "Not mine" }),
            write("PATCH", "alternative-values/1", "AlternativeValue", { name: "Not mine" }),
            upload("task-records/upload", "task", "csv_file", "records.csv"),
            upload("alternative-values/upload", "choice_group", "csv_file", "values.csv"),
            upload("task-record-media/upload", "task", "zip_file", "media.zip")
          ])
          expect(refusals.map((refusal) => refusal.status)).toEqual([403, 403, 403, 403, 403, 403])
        })
      })
    )
  })
})
