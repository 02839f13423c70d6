import { checked, formCard, input, value } from "./adminForm.ts"
import { announce } from "./api.ts"
import { type Catalogue, inGroup, named, resourceSelect } from "./catalogue.ts"
import { field, h } from "./dom.ts"
import { text, updateResource } from "./jsonApi.ts"

/** Review administration edits: a project's name, a choice's fields, a choice group's name, an alternative value. */

export const renameProjectForm = (catalogue: Catalogue, onChange: () => void) =>
  formCard(
    "Rename a project",
    [
      field("Project to rename", resourceSelect("project", catalogue.projects, named)),
      field("New name", input("name", { required: true, maxlength: 100 }))
    ],
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
export const editChoiceForm = (catalogue: Catalogue, onChange: () => void) => {
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
      h(
        "div",
        { class: "field checkbox" },
        h("label", {}, input("requireAlternativeValue", { type: "checkbox" }), " Needs an alternative value")
      )
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

export const renameChoiceGroupForm = (catalogue: Catalogue, onChange: () => void) =>
  formCard(
    "Rename a choice group",
    [
      field("Choice group to rename", resourceSelect("choiceGroup", catalogue.choiceGroups, named)),
      field("New name", input("name", { required: true, maxlength: 100 }))
    ],
    "Rename the choice group",
    async (form) => {
      const saved = await updateResource("choice-groups", "ChoiceGroup", value(form, "choiceGroup"), { name: value(form, "name") })
      if (saved === undefined) return false
      announce(`Choice group renamed “${value(form, "name")}”.`)
      onChange()
      return true
    }
  )

/** Edits an alternative value, picked under its choice group (two groups may hold the same name). */
export const editAlternativeValueForm = (catalogue: Catalogue, onChange: () => void) => {
  const alternatives = catalogue.groupContents.filter((resource) => resource.type === "AlternativeValue")
  const groups = catalogue.choiceGroups
    .map((group) => ({ group, values: inGroup(catalogue, group, "alternativeValues", "AlternativeValue") }))
    .filter(({ values }) => values.length > 0)
  const alternativeSelect = h(
    "select",
    { name: "alternativeValue", required: true },
    ...groups.map(({ group, values }) =>
      h("optgroup", { label: named(group) }, ...values.map((one) => h("option", { value: one.id }, named(one))))
    )
  )
  const form = formCard(
    "Edit an alternative value",
    [
      field("Alternative value to edit", alternativeSelect),
      field("Alternative name", input("name", { required: true, maxlength: 100 })),
      field("Alternative value", input("value", { maxlength: 100 }), "The name when empty.")
    ],
    "Save the alternative value",
    async (form) => {
      const saved = await updateResource("alternative-values", "AlternativeValue", value(form, "alternativeValue"), {
        name: value(form, "name"),
        value: value(form, "value")
      })
      if (saved === undefined) return false
      announce(`Alternative value “${value(form, "name")}” saved.`)
      onChange()
      return false
    }
  )
  const fill = () => {
    const alternative = alternatives.find((one) => one.id === value(form, "alternativeValue"))
    if (alternative === undefined) return
    for (const name of ["name", "value"]) (form.elements.namedItem(name) as HTMLInputElement).value = text(alternative.attributes[name])
  }
  alternativeSelect.addEventListener("change", fill)
  fill()
  return form
}
