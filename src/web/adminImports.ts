import { announce } from "./api.ts"
import { checked, formCard, input, value } from "./adminForm.ts"
import { type Catalogue, named, resourceSelect } from "./catalogue.ts"
import { csvPreview } from "./csvPreview.ts"
import { field, h } from "./dom.ts"
import { uploadForm } from "./jsonApi.ts"

/** Review administration uploads: records from CSV, alternative values from CSV, media files from a ZIP. */

type Counts = Readonly<Record<string, number | undefined>>

interface Upload {
  readonly title: string
  readonly controls: ReadonlyArray<HTMLElement>
  readonly file: { readonly label: string; readonly accept: string; readonly hint: string }
  readonly button: string
  /** The API path, and the multipart field names it reads (the file's last). */
  readonly path: string
  readonly fields: (form: HTMLFormElement) => Readonly<Record<string, string>>
  readonly fileField: string
  /** A CSV is previewed before its import; a ZIP is not. */
  readonly previewed: boolean
  /** What the server did, from the counts of its answer's `meta`. */
  readonly describe: (fileName: string, counts: Counts, form: HTMLFormElement) => string
  /** After an upload that changes what the page lists: the result is announced and the page read again. */
  readonly onDone?: () => void
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`

/** A file upload form; what the server did, or why it refused, is said under the form, where its user looks. */
const uploadCard = (upload: Upload) => {
  const preview = h("div", { class: "csv-preview" })
  const result = h("p", { class: "upload-result", role: "status" })
  const say = (message: string, failed: boolean) => {
    result.textContent = message
    result.classList.toggle("upload-failed", failed)
  }
  const file = input(upload.fileField, { type: "file", accept: upload.file.accept, required: true }) as HTMLInputElement
  file.addEventListener("change", async () => {
    const chosenFile = file.files?.[0]
    say("", false)
    if (upload.previewed) preview.replaceChildren(chosenFile === undefined ? "" : csvPreview(await chosenFile.text()))
  })
  const form = formCard(
    upload.title,
    [...upload.controls, field(upload.file.label, file, upload.file.hint)],
    upload.button,
    async (form) => {
      const chosenFile = file.files?.[0]
      if (chosenFile === undefined) return false
      const body = new FormData()
      for (const [name, content] of Object.entries(upload.fields(form))) body.append(name, content)
      body.append(upload.fileField, chosenFile, chosenFile.name)
      const answer = await uploadForm(upload.path, body, (message) => say(message, true))
      if (answer === undefined) return false
      const message = upload.describe(chosenFile.name, (answer.meta ?? {}) as Counts, form)
      if (upload.onDone === undefined) say(message, false)
      else {
        announce(message)
        upload.onDone()
      }
      return false
    }
  )
  if (upload.previewed) form.append(preview)
  form.append(result)
  return form
}

export const recordImportForm = (catalogue: Catalogue) =>
  uploadCard({
    title: "Import records from CSV",
    controls: [field("Into the task", resourceSelect("task", catalogue.tasks, named))],
    file: {
      label: "CSV file",
      accept: ".csv,text/csv",
      hint: "Columns: uid, original_value, predicted_value, metadata. A uid already in the task updates its record."
    },
    button: "Import the records",
    path: "task-records/upload",
    fields: (form) => ({ task: value(form, "task") }),
    fileField: "csv_file",
    previewed: true,
    describe: (fileName, { created = 0, updated = 0 }) => `Imported ${fileName}: ${plural(created, "record")} created, ${updated} updated.`
  })

/** Imported values are added to the group's (none is replaced), and the page is read again to list them. */
export const alternativeValueImportForm = (catalogue: Catalogue, onChange: () => void) =>
  uploadCard({
    title: "Import alternative values from CSV",
    controls: [field("Into the choice group", resourceSelect("choiceGroup", catalogue.choiceGroups, named))],
    file: {
      label: "CSV file",
      accept: ".csv,text/csv",
      hint: "Columns: name and, optionally, value (the name when empty). Each row adds an alternative value."
    },
    button: "Import the alternative values",
    path: "alternative-values/upload",
    fields: (form) => ({ choice_group: value(form, "choiceGroup") }),
    fileField: "csv_file",
    previewed: true,
    describe: (fileName, { created = 0 }, form) => {
      const group = catalogue.choiceGroups.find((one) => one.id === value(form, "choiceGroup"))
      return `Imported ${fileName}: ${plural(created, "alternative value")} added to “${group === undefined ? "" : named(group)}”.`
    },
    onDone: onChange
  })

export const mediaUploadForm = (catalogue: Catalogue) =>
  uploadCard({
    title: "Attach media to records",
    controls: [
      field("To the records of the task", resourceSelect("task", catalogue.tasks, named)),
      h(
        "div",
        { class: "field checkbox" },
        h("label", {}, input("replace", { type: "checkbox" }), " Replace the media a record already has")
      )
    ],
    file: {
      label: "ZIP file",
      accept: ".zip,application/zip",
      hint: "Each image or video named after a record's uid is attached to that record: s1.png to the record s1."
    },
    button: "Attach the media",
    path: "task-record-media/upload",
    fields: (form) => ({ task: value(form, "task"), only_one_per_task_record: String(checked(form, "replace")) }),
    fileField: "zip_file",
    previewed: false,
    describe: (fileName, { created = 0, replaced = 0, ignored = 0 }) =>
      `Attached from ${fileName}: ${plural(created, "file")} attached, ${replaced} replaced, ${ignored} ignored (not an image or video, or named after no record of the task).`
  })
