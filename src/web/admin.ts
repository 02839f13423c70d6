import { announce, getJson } from "./api.ts"
import { field, h, routeHref, uniqueId } from "./dom.ts"
import { csvPreview } from "./csvPreview.ts"
import { createResource, type Document, list, type Resource, text, updateResource, uploadForm } from "./jsonApi.ts"

/** Review administration for staff: projects, choice groups, choices, alternative values, tasks and record imports. */

/** What the administration forms choose from, read once per render. */
export interface Catalogue {
  readonly projects: ReadonlyArray<Resource>
  readonly choiceGroups: ReadonlyArray<Resource>
  /** The choices and alternative values of the choice groups. */
  readonly groupContents: ReadonlyArray<Resource>
  readonly users: ReadonlyArray<Resource>
  readonly tasks: ReadonlyArray<Resource>
}

const all = async (path: string) => list(await getJson<Document>(`/api/v1/${path}/?page[size]=100`))

export const loadCatalogue = async (): Promise<Catalogue> => {
  const [projects, groups, users, tasks] = await Promise.all([
    all("projects"),
    getJson<Document>("/api/v1/choice-groups/?include=choices,alternativeValues&page[size]=100"),
    all("users"),
    all("tasks")
  ])
  return { projects, choiceGroups: list(groups), groupContents: groups?.included ?? [], users, tasks }
}

/** A select of resources by name; `multiple` for the checkers. */
export const resourceSelect = (name: string, resources: ReadonlyArray<Resource>, label: (resource: Resource) => string, multiple = false) =>
  h("select", { name, multiple, required: !multiple }, ...resources.map((resource) => h("option", { value: resource.id }, label(resource))))

export const named = (resource: Resource) => text(resource.attributes.name)
export const userLabel = (user: Resource) => text(user.attributes.username) || `User ${user.id}`

export const selectedValues = (select: HTMLSelectElement) => [...select.selectedOptions].map((option) => option.value)

/** A form in its own card: `submit` answers true when the form may be emptied. */
const formCard = (title: string, controls: ReadonlyArray<HTMLElement>, button: string, submit: (form: HTMLFormElement) => Promise<boolean>) => {
  const id = uniqueId("admin-form")
  const form = h(
    "form",
    {
      class: "card admin-form",
      "aria-labelledby": id,
      onsubmit: async (event: Event) => {
        event.preventDefault()
        if (await submit(form)) form.reset()
      }
    },
    h("h3", { id }, title),
    h("div", { class: "form-grid" }, ...controls),
    h("p", { class: "actions" }, h("button", { type: "submit" }, button))
  )
  return form
}

const input = (name: string, attributes: Readonly<Record<string, string | number | boolean>> = {}) => h("input", { name, ...attributes })
const value = (form: HTMLFormElement, name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim()
const checked = (form: HTMLFormElement, name: string) => (form.elements.namedItem(name) as HTMLInputElement).checked
const chosen = (form: HTMLFormElement, name: string) => selectedValues(form.elements.namedItem(name) as HTMLSelectElement)

/** A field with no value is left out, so that the server's default applies. */
const optionalNumber = (form: HTMLFormElement, name: string) => (value(form, name) === "" ? {} : { [name]: Number(value(form, name)) })

const statusSelect = (current = "OPEN") =>
  h("select", { name: "status" }, ...["OPEN", "LOCKED", "CLOSED"].map((status) => h("option", { value: status, selected: status === current }, status.toLowerCase())))

const projectForm = (onChange: () => void) =>
  formCard("New review project", [field("Project name", input("name", { required: true, maxlength: 100 }))], "Create the project", async (form) => {
    const created = await createResource("projects", "Project", { name: value(form, "name") })
    if (created === undefined) return false
    announce(`Project “${value(form, "name")}” created.`)
    onChange()
    return true
  })

const choiceGroupForm = (onChange: () => void) =>
  formCard("New choice group", [field("Choice group name", input("name", { required: true, maxlength: 100 }))], "Create the choice group", async (form) => {
    const created = await createResource("choice-groups", "ChoiceGroup", { name: value(form, "name") })
    if (created === undefined) return false
    announce(`Choice group “${value(form, "name")}” created.`)
    onChange()
    return true
  })

const choiceForm = (catalogue: Catalogue, onChange: () => void) =>
  formCard(
    "Add a choice",
    [
      field("Choice group", resourceSelect("choiceGroup", catalogue.choiceGroups, named)),
      field("Choice name", input("name", { required: true, maxlength: 100 })),
      field("Value", input("value", { maxlength: 100 }), "Stored with each review; the name when empty."),
      field("Colour", input("color", { type: "color", value: "#2f6f4f" })),
      field("Short keys", input("shortkeys", { maxlength: 100 }), "Keys that pick this choice in the review queue, separated by commas."),
      h("div", { class: "field checkbox" }, h("label", {}, input("requireAlternativeValue", { type: "checkbox" }), " Needs an alternative value"))
    ],
    "Add the choice",
    async (form) => {
      const created = await createResource(
        "choices",
        "Choice",
        {
          name: value(form, "name"),
          value: value(form, "value"),
          color: value(form, "color"),
          shortkeys: value(form, "shortkeys"),
          requireAlternativeValue: checked(form, "requireAlternativeValue")
        },
        { choiceGroup: ["ChoiceGroup", value(form, "choiceGroup")] }
      )
      if (created === undefined) return false
      announce(`Choice “${value(form, "name")}” added.`)
      onChange()
      return true
    }
  )

const alternativeValueForm = (catalogue: Catalogue, onChange: () => void) =>
  formCard(
    "Add an alternative value",
    [
      field("Choice group", resourceSelect("choiceGroup", catalogue.choiceGroups, named)),
      field("Alternative name", input("name", { required: true, maxlength: 100 })),
      field("Alternative value", input("value", { maxlength: 100 }), "The name when empty.")
    ],
    "Add the alternative value",
    async (form) => {
      const created = await createResource("alternative-values", "AlternativeValue", { name: value(form, "name"), value: value(form, "value") }, {
        choiceGroup: ["ChoiceGroup", value(form, "choiceGroup")]
      })
      if (created === undefined) return false
      announce(`Alternative value “${value(form, "name")}” added.`)
      onChange()
      return true
    }
  )

const taskForm = (catalogue: Catalogue, onChange: () => void) =>
  formCard(
    "New review task",
    [
      field("Task name", input("name", { required: true, maxlength: 100 })),
      field("Description", input("description", { maxlength: 100 })),
      field("Review project", resourceSelect("project", catalogue.projects, named)),
      field("Choices from", resourceSelect("choiceGroup", catalogue.choiceGroups, named)),
      field("Checkers", resourceSelect("checkers", catalogue.users, userLabel, true), "Hold Ctrl (or ⌘) to pick several."),
      field("Rounds", input("rounds", { type: "number", min: 1, value: 1 })),
      field("Priority", input("priority", { type: "number", min: 1, value: 1 })),
      field("Status", statusSelect()),
      field(
        "Template",
        h("select", { name: "templateType" }, ...[["TEXT", "Text"], ["MEDIA", "Media (image or video)"], ["IFRAME", "Embedded page"]].map(([type, label]) => h("option", { value: type }, label))),
        "How a record is shown to the checkers."
      )
    ],
    "Create the task",
    async (form) => {
      const created = await createResource(
        "tasks",
        "Task",
        { name: value(form, "name"), description: value(form, "description"), status: value(form, "status"), templateType: value(form, "templateType"), ...optionalNumber(form, "rounds"), ...optionalNumber(form, "priority") },
        { project: ["Project", value(form, "project")], choiceGroup: ["ChoiceGroup", value(form, "choiceGroup")], checkers: ["User", chosen(form, "checkers")] }
      )
      if (created === undefined) return false
      announce(`Task “${value(form, "name")}” created.`)
      onChange()
      return true
    }
  )

const importForm = (catalogue: Catalogue) => {
  const preview = h("div", { class: "csv-preview" })
  const result = h("p", { class: "import-result", role: "status" })
  const file = input("csvFile", { type: "file", accept: ".csv,text/csv", required: true }) as HTMLInputElement
  file.addEventListener("change", async () => {
    const chosenFile = file.files?.[0]
    result.textContent = ""
    preview.replaceChildren(chosenFile === undefined ? "" : csvPreview(await chosenFile.text()))
  })
  const form = formCard(
    "Import records from CSV",
    [
      field("Into the task", resourceSelect("task", catalogue.tasks, named)),
      field("CSV file", file, "Columns: uid, original_value, predicted_value, metadata. A uid already in the task updates its record.")
    ],
    "Import the records",
    async (form) => {
      const chosenFile = file.files?.[0]
      if (chosenFile === undefined) return false
      const body = new FormData()
      body.append("task", value(form, "task"))
      body.append("csv_file", chosenFile, chosenFile.name)
      const answer = await uploadForm("task-records/upload", body)
      if (answer === undefined) return false
      const { created = 0, updated = 0 } = (answer.meta ?? {}) as { created?: number; updated?: number }
      result.textContent = `Imported ${chosenFile.name}: ${created} record${created === 1 ? "" : "s"} created, ${updated} updated.`
      return false
    }
  )
  form.append(preview, result)
  return form
}

const renameProjectForm = (catalogue: Catalogue, onChange: () => void) =>
  formCard(
    "Rename a project",
    [field("Project to rename", resourceSelect("project", catalogue.projects, named)), field("New name", input("name", { required: true, maxlength: 100 }))],
    "Rename the project",
    async (form) => {
      const saved = await updateResource("projects", "Project", value(form, "project"), { name: value(form, "name") })
      if (saved === undefined) return false
      announce(`Project renamed “${value(form, "name")}”.`)
      onChange()
      return true
    }
  )

/** Edits a choice: its fields are filled with the chosen choice's values. */
const editChoiceForm = (catalogue: Catalogue, onChange: () => void) => {
  const choices = catalogue.groupContents.filter((resource) => resource.type === "Choice")
  const choiceSelect = resourceSelect("choice", choices, named)
  const form = formCard(
    "Edit a choice",
    [
      field("Choice to edit", choiceSelect),
      field("Choice name", input("name", { required: true, maxlength: 100 })),
      field("Value", input("value", { maxlength: 100 })),
      field("Colour", input("color", { type: "color" })),
      field("Short keys", input("shortkeys", { maxlength: 100 })),
      h("div", { class: "field checkbox" }, h("label", {}, input("requireAlternativeValue", { type: "checkbox" }), " Needs an alternative value"))
    ],
    "Save the choice",
    async (form) => {
      const saved = await updateResource("choices", "Choice", value(form, "choice"), {
        name: value(form, "name"),
        value: value(form, "value"),
        color: value(form, "color"),
        shortkeys: value(form, "shortkeys"),
        requireAlternativeValue: checked(form, "requireAlternativeValue")
      })
      if (saved === undefined) return false
      announce(`Choice “${value(form, "name")}” saved.`)
      onChange()
      return false
    }
  )
  const fill = () => {
    const choice = choices.find((one) => one.id === value(form, "choice"))
    if (choice === undefined) return
    for (const name of ["name", "value", "color", "shortkeys"]) {
      const control = form.elements.namedItem(name) as HTMLInputElement
      control.value = text(choice.attributes[name])
    }
    const needsAlternative = form.elements.namedItem("requireAlternativeValue") as HTMLInputElement
    needsAlternative.checked = choice.attributes.requireAlternativeValue === true
  }
  choiceSelect.addEventListener("change", fill)
  fill()
  return form
}

/** What each choice group offers, so that staff see what they created. */
const choiceGroupsOverview = (catalogue: Catalogue) => {
  // The group's relationship lists the ids; the resources themselves are in `included`.
  const inGroup = (group: Resource, relationship: string, type: string) => {
    const linked = group.relationships?.[relationship]?.data
    const ids = new Set(Array.isArray(linked) ? linked.map((one) => one.id) : [])
    return catalogue.groupContents.filter((resource) => resource.type === type && ids.has(resource.id))
  }
  const describeChoice = (choice: Resource) => {
    const keys = text(choice.attributes.shortkeys)
    const details = [`value ${text(choice.attributes.value)}`, keys === "" ? "" : `keys ${keys}`, choice.attributes.requireAlternativeValue === true ? "needs an alternative value" : ""]
    return `${text(choice.attributes.name)} (${details.filter((detail) => detail !== "").join(", ")})`
  }
  return h(
    "section",
    { class: "card admin-form", "aria-labelledby": "choice-groups-title" },
    h("h3", { id: "choice-groups-title" }, "Choice groups"),
    catalogue.choiceGroups.length === 0
      ? h("p", { class: "muted" }, "No choice groups yet.")
      : h(
          "dl",
          { class: "metadata" },
          ...catalogue.choiceGroups.flatMap((group) => {
            const choices = inGroup(group, "choices", "Choice")
            const alternatives = inGroup(group, "alternativeValues", "AlternativeValue")
            return [
              h("dt", {}, named(group)),
              h("dd", {}, choices.length === 0 ? "No choices." : `Choices: ${choices.map(describeChoice).join("; ")}.`),
              alternatives.length === 0 ? null : h("dd", {}, `Alternative values: ${alternatives.map(named).join(", ")}.`)
            ]
          })
        )
  )
}

/** The administration section of the Review page; `onChange` re-reads the page after something was created. */
export const adminSection = (catalogue: Catalogue, onChange: () => void) =>
  h(
    "section",
    { class: "admin", "aria-labelledby": "admin-title" },
    h("h2", { id: "admin-title" }, "Review administration"),
    h(
      "div",
      { class: "admin-grid" },
      projectForm(onChange),
      choiceGroupForm(onChange),
      renameProjectForm(catalogue, onChange),
      choiceGroupsOverview(catalogue),
      choiceForm(catalogue, onChange),
      editChoiceForm(catalogue, onChange),
      alternativeValueForm(catalogue, onChange),
      taskForm(catalogue, onChange),
      importForm(catalogue)
    )
  )

/** Staff controls of one task card: edit its status, priority and rounds; tag the documents of its confirmed records. */
export const taskControls = (task: Resource, onChange: () => void) => {
  const edit = formCard(
    `Edit ${named(task)}`,
    [
      field("Status", statusSelect(text(task.attributes.status) || "OPEN")),
      field("Priority", input("priority", { type: "number", min: 1, value: text(task.attributes.priority) || 1 })),
      field("Rounds", input("rounds", { type: "number", min: 1, value: text(task.attributes.rounds) || 1 }))
    ],
    "Save the task",
    async (form) => {
      const saved = await updateResource("tasks", "Task", task.id, { status: value(form, "status"), ...optionalNumber(form, "priority"), ...optionalNumber(form, "rounds") })
      if (saved !== undefined) {
        announce(`Task “${named(task)}” saved.`)
        onChange()
      }
      return false
    }
  )
  const tagged = h("p", { class: "tag-result", role: "status" })
  const tag = formCard(
    `Tag confirmed documents of ${named(task)}`,
    [
      field("Tag", input("tag", { required: true, maxlength: 64 })),
      field("Confirming values", input("confirmingValues"), "Choice values that confirm a record, separated by commas.")
    ],
    "Tag the documents",
    async (form) => {
      const label = value(form, "tag")
      const confirmingValues = value(form, "confirmingValues").split(",").map((one) => one.trim()).filter((one) => one !== "")
      const answer = await createResource(`tasks/${task.id}/tag-documents`, "TagDocuments", { tag: label, confirmingValues })
      if (answer === undefined) return false
      const { records = 0, documents = 0 } = (answer.meta ?? {}) as { records?: number; documents?: number }
      tagged.replaceChildren(
        `${documents} document${documents === 1 ? "" : "s"} of ${records} confirmed record${records === 1 ? "" : "s"} tagged “${label}”. `,
        h("a", { href: routeHref(["search"], new URLSearchParams({ tags: label })) }, `Search the documents tagged “${label}”`)
      )
      return false
    }
  )
  tag.append(tagged)
  return h("details", { class: "task-admin" }, h("summary", {}, "Manage this task"), edit, tag)
}
