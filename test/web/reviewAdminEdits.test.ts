import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import yazl from "yazl"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { type Browser, chromiumFound, chromiumPath, launchBrowser, screenshot, seriousViolations } from "./browser.ts"
import { createReviewFixture } from "./reviewFixture.ts"

const title = chromiumFound
  ? "review administration edits and uploads on the web page in Chromium"
  : `review administration edits and uploads on the web page (skipped: no Chromium at ${chromiumPath}; .ci/run installs Debian's chromium package)`

let browser: Browser | undefined
const page = (): Page => browser!.page
const step = <A>(body: () => Promise<A>) => Effect.promise(body)

const checkPage = async (name: string) => {
  await screenshot(page(), name)
  expect(await seriousViolations(page())).toEqual([])
}

const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64")
const gif = Buffer.from("R0lGODlhAwACAIAAAAAAAP///yH5BAEAAAAALAAAAAADAAIAAAICRF4AOw==", "base64")

const zipOf = (files: ReadonlyArray<readonly [string, Buffer]>) =>
  new Promise<Buffer>((resolve) => {
    const zip = new yazl.ZipFile()
    for (const [name, content] of files) zip.addBuffer(content, name)
    const chunks: Array<Buffer> = []
    zip.outputStream.on("data", (chunk: Buffer) => chunks.push(chunk))
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)))
    zip.end()
  })

const csv = (name: string, content: string) => ({ name, mimeType: "text/csv", buffer: Buffer.from(content) })

interface Listed {
  readonly data: ReadonlyArray<{ readonly attributes: Readonly<Record<string, unknown>> }>
  readonly included?: ReadonlyArray<{ readonly type: string; readonly attributes: Readonly<Record<string, unknown>> }>
}

describe.skipIf(!chromiumFound)(title, () => {
  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
  })

  layer(testServerLayer({ database: "pglite" }), { timeout: 60_000 })((it) => {
    it.effect(
      "a staff user renames a choice group, imports alternative values from CSV, edits one, and attaches media to records",
      () =>
        Effect.gen(function* () {
          const url = (yield* TestServer).url
          yield* step(() => createReviewFixture(url))
          yield* step(async () => {
            await page().goto(`${url}/#/review`)
            const admin = page().getByRole("region", { name: "Review administration" })
            await admin.waitFor()
            const status = page().locator("#status")

            const renameForm = admin.getByRole("form", { name: "Rename a choice group" })
            await renameForm.getByLabel("Choice group to rename").selectOption({ label: "Correctness" })
            await renameForm.getByLabel("New name").fill("Address check")
            await renameForm.getByRole("button", { name: "Rename the choice group" }).click()
            await status.getByText("Choice group renamed “Address check”.").waitFor()

            // A refused file says why under the form, and the page stays as it was.
            const importForm = page().getByRole("form", { name: "Import alternative values from CSV" })
            await importForm.getByLabel("Into the choice group").selectOption({ label: "Address check" })
            await importForm.getByLabel("CSV file").setInputFiles(csv("colours.csv", "name,colour\nHarbour Street,red\n"))
            await importForm.getByRole("button", { name: "Import the alternative values" }).click()
            await importForm
              .getByRole("status")
              .getByText("POST /api/v1/alternative-values/upload/ failed (400): Unknown column in the CSV header: colour.")
              .waitFor()
            await checkPage("review-admin-alternative-import-refused")

            await importForm.getByLabel("CSV file").setInputFiles(csv("streets.csv", "name,value\nHarbour Street,harbour-st\nQuay Road,\n"))
            await importForm.getByRole("table", { name: "Preview: the first 2 rows" }).waitFor()
            await importForm.getByRole("button", { name: "Import the alternative values" }).click()
            await status.getByText("Imported streets.csv: 2 alternative values added to “Address check”.").waitFor()
            const overview = page().getByRole("region", { name: "Choice groups" })
            await overview.getByText("Alternative values: Harbour Street, Quay Road.").waitFor()

            // An alternative value is edited from its current name and value (the value was left to default to the name).
            const editForm = page().getByRole("form", { name: "Edit an alternative value" })
            await editForm.getByLabel("Alternative value to edit").selectOption({ label: "Quay Road" })
            expect(await editForm.getByLabel("Alternative value", { exact: true }).inputValue()).toBe("Quay Road")
            await editForm.getByLabel("Alternative name").fill("Quay Road East")
            await editForm.getByLabel("Alternative value", { exact: true }).fill("quay-rd-e")
            await editForm.getByRole("button", { name: "Save the alternative value" }).click()
            await status.getByText("Alternative value “Quay Road East” saved.").waitFor()
            await overview.getByText("Alternative values: Harbour Street, Quay Road East.").waitFor()
            await checkPage("review-admin-alternative-values")

            const mediaForm = page().getByRole("form", { name: "Attach media to records" })
            await mediaForm.getByLabel("To the records of the task").selectOption({ label: "Company addresses" })
            const zip = await zipOf([
              ["a.png", png],
              ["scans/b.gif", gif],
              ["notes.txt", Buffer.from("not an image")]
            ])
            await mediaForm.getByLabel("ZIP file").setInputFiles({ name: "scans.zip", mimeType: "application/zip", buffer: zip })
            await mediaForm.getByRole("button", { name: "Attach the media" }).click()
            const mediaResult = mediaForm.getByRole("status")
            await mediaResult
              .getByText(
                "Attached from scans.zip: 2 files attached, 0 replaced, 1 ignored (not an image or video, or named after no record of the task)."
              )
              .waitFor()
            await checkPage("review-admin-media")

            // Replacing keeps one media per record.
            await mediaForm
              .getByLabel("ZIP file")
              .setInputFiles({ name: "again.zip", mimeType: "application/zip", buffer: await zipOf([["a.png", png]]) })
            await mediaForm.getByLabel("Replace the media a record already has").check()
            await mediaForm.getByRole("button", { name: "Attach the media" }).click()
            await mediaResult.getByText("Attached from again.zip: 1 file attached, 1 replaced, 0 ignored", { exact: false }).waitFor()

            await mediaForm
              .getByLabel("ZIP file")
              .setInputFiles({ name: "broken.zip", mimeType: "application/zip", buffer: Buffer.from("not a zip") })
            await mediaForm.getByRole("button", { name: "Attach the media" }).click()
            await mediaResult
              .getByText("POST /api/v1/task-record-media/upload/ failed (400): The ZIP file cannot be read", { exact: false })
              .waitFor()
            expect(await mediaResult.getAttribute("class")).toContain("upload-failed")
            await checkPage("review-admin-media-refused")
          })

          const read = (path: string) => step(async () => (await (await fetch(`${url}/api/v1/${path}`)).json()) as Listed)
          const groups = yield* read("choice-groups/?include=alternativeValues")
          expect(groups.data.map((group) => group.attributes.name)).toEqual(["Address check"])
          expect(groups.included?.map((one) => [one.attributes.name, one.attributes.value])).toEqual([
            ["Harbour Street", "harbour-st"],
            ["Quay Road East", "quay-rd-e"]
          ])
          const media = yield* read("task-record-media/")
          expect(media.data.map((one) => [one.attributes.uid, one.attributes.mimeType]).sort()).toEqual([
            ["a", "image/png"],
            ["b", "image/gif"]
          ])
        }),
      60_000
    )
  })
})
