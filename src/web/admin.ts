import { editAlternativeValueForm, editChoiceForm, renameChoiceGroupForm, renameProjectForm } from "./adminEdits.ts"
import { checked, chosen, formCard, input, optionalNumber, value } from "./adminForm.ts"
import { alternativeValueImportForm, mediaUploadForm, recordImportForm } from "./adminImports.ts"
import { announce } from "./api.ts"
import { type Catalogue, inGroup, named, resourceSelect, userLabel } from "./catalogue.ts"
import { field, h, routeHref } from "./dom.ts"
import { createResource, type Resource, text, updateResource } from "./jsonApi.ts"

/** Review administration for staff: what it creates, the overview of the choice groups, and each task's controls. */

const statusSelect = (current = "OPEN") =>
  h(
    "select",
    { name: "status" },
    ...["OPEN", "LOCKED", "CLOSED"].map((status) => h("option", { value: status, selected: status === current }, status.toLowerCase()))
  )

const projectForm = (onChange: () => void) =>
  formCard(
    "New review project",
    [field("Project name", input("name", { required: true, maxlength: 100 }))],
    "Create the project",
    async (form) => {
      const created = await createResource("projects", "Project", { name: value(form, "name") })
      if (created === undefined) return false
      announce(`Project “${value(form, "name")}” created.`)
      onChange()
      return true
    }
  )

const choiceGroupForm = (onChange: () => void) =>
  formCard(
    "New choice group",
    [field("Choice group name", input("name", { required: true, maxlength: 100 }))],
    "Create the choice group",
    async (form) => {
      const created = await createResource("choice-groups", "ChoiceGroup", { name: value(form, "name") })
      if (created === undefined) return false
      announce(`Choice group “${value(form, "name")}” created.`)
      onChange()
      return true
    }
  )

const choiceForm = (catalogue: Catalogue, onChange: () => void) =>
  formCard(
    "Add a choice",
    [
      field("Choice group", resourceSelect("choiceGroup", catalogue.choiceGroups, named)),
      field("Choice name", input("name", { required: true, maxlength: 100 })),
      field("Value", input("value", { maxlength: 100 }), "Stored with each review; the name when empty."),
      field("Colour", input("color", { type: "color", value: "#2f6f4f" })),
      field("Short keys", input("shortkeys", { maxlength: 100 }), "Keys that pick this choice in the review queue, separated by commas."),
      h(
        "div",
        { class: "field checkbox" },
        h("label", {}, input("requireAlternativeValue", { type: "checkbox" }), " Needs an alternative value")
      )
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
      const created = await createResource(
        "alternative-values",
        "AlternativeValue",
        { name: value(form, "name"), value: value(form, "value") },
        {
          choiceGroup: ["ChoiceGroup", value(form, "choiceGroup")]
        }
      )
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
        h(
          "select",
          { name: "templateType" },
          ...[
            ["TEXT", "Text"],
            ["MEDIA", "Media (image or video)"],
            ["IFRAME", "Embedded page"]
          ].map(([type, label]) => h("option", { value: type }, label))
        ),
        "How a record is shown to the checkers."
      )
    ],
    "Create the task",
    async (form) => {
      const created = await createResource(
        "tasks",
        "Task",
        {
          name: value(form, "name"),
          description: value(form, "description"),
          status: value(form, "status"),
          templateType: value(form, "templateType"),
          ...optionalNumber(form, "rounds"),
          ...optionalNumber(form, "priority")
        },
        {
          project: ["Project", value(form, "project")],
          choiceGroup: ["ChoiceGroup", value(form, "choiceGroup")],
          checkers: ["User", chosen(form, "checkers")]
        }
      )
      if (created === undefined) return false
      announce(`Task “${value(form, "name")}” created.`)
      onChange()
      return true
    }
  )

/** What each choice group offers, so that staff see what they created. */
const choiceGroupsOverview = (catalogue: Catalogue) => {
  const describeChoice = (choice: Resource) => {
    const keys = text(choice.attributes.shortkeys)
    const details = [
      `value ${text(choice.attributes.value)}`,
      keys === "" ? "" : `keys ${keys}`,
      choice.attributes.requireAlternativeValue === true ? "needs an alternative value" : ""
    ]
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
            const choices = inGroup(catalogue, group, "choices", "Choice")
            const alternatives = inGroup(catalogue, group, "alternativeValues", "AlternativeValue")
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
      renameChoiceGroupForm(catalogue, onChange),
      choiceGroupsOverview(catalogue),
      choiceForm(catalogue, onChange),
      editChoiceForm(catalogue, onChange),
      alternativeValueForm(catalogue, onChange),
      editAlternativeValueForm(catalogue, onChange),
      alternativeValueImportForm(catalogue, onChange),
      taskForm(catalogue, onChange),
      recordImportForm(catalogue),
      mediaUploadForm(catalogue)
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
      const saved = await updateResource("tasks", "Task", task.id, {
        status: value(form, "status"),
        ...optionalNumber(form, "priority"),
        ...optionalNumber(form, "rounds")
      })
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
      const confirmingValues = value(form, "confirmingValues")
        .split(",")
        .map((one) => one.trim())
        .filter((one) => one !== "")
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
