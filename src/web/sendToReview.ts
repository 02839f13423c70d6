import { type Catalogue, named, resourceSelect, selectedValues, userLabel } from "./catalogue.ts"
import { field, h, routeHref } from "./dom.ts"
import { createResource, list, type Relations, text } from "./jsonApi.ts"

/**
 * "Send to review" on a finished batch search (staff only): its hits become the records of a new task, or are
 * added to an existing one, through `POST /api/v1/tasks/from-batch-search/`.
 */
export const sendToReviewForm = (batchSearch: string, batchName: string, queries: ReadonlyArray<string>, catalogue: Catalogue) => {
  const intoNew = h("input", { type: "radio", name: "into", value: "new", checked: true })
  const intoExisting = h("input", { type: "radio", name: "into", value: "existing", disabled: catalogue.tasks.length === 0 })
  const name = h("input", { name: "name", maxlength: 100, value: batchName })
  const project = resourceSelect("project", catalogue.projects, named)
  const choiceGroup = resourceSelect("choiceGroup", catalogue.choiceGroups, named)
  const checkers = resourceSelect("checkers", catalogue.users, userLabel, true)
  const rounds = h("input", { name: "rounds", type: "number", min: 1, value: 1 })
  const existingTask = resourceSelect("task", catalogue.tasks, named)
  const newFields = h(
    "div",
    { class: "form-grid" },
    field("Task name", name),
    field("Review project", project),
    field("Choices from", choiceGroup),
    field("Checkers", checkers, "Hold Ctrl (or ⌘) to pick several."),
    field("Rounds", rounds)
  )
  const existingFields = h("div", { class: "form-grid", hidden: true }, field("Existing task", existingTask))
  // Only the fields of the chosen target are shown and required.
  const showTarget = () => {
    newFields.hidden = !intoNew.checked
    existingFields.hidden = intoNew.checked
    for (const select of [project, choiceGroup]) select.required = intoNew.checked
    existingTask.required = !intoNew.checked
  }
  showTarget()
  const queryBoxes = queries.map((query) => h("input", { type: "checkbox", name: "queries", value: query, checked: true }))
  const hitsPerQuery = h("input", { name: "maxHitsPerQuery", type: "number", min: 1 })
  const skipReviewed = h("input", { name: "skipReviewed", type: "checkbox", checked: true })
  const result = h("p", { class: "send-result", role: "status" })

  const send = async () => {
    const creating = intoNew.checked
    const attributes = {
      batchSearch,
      queries: queryBoxes.filter((box) => box.checked).map((box) => box.value),
      skipReviewed: skipReviewed.checked,
      ...(hitsPerQuery.value === "" ? {} : { maxHitsPerQuery: Number(hitsPerQuery.value) }),
      ...(creating ? { name: name.value.trim() || batchName, rounds: Number(rounds.value || 1) } : {})
    }
    const relations: Relations = creating
      ? {
          project: ["Project", project.value],
          choiceGroup: ["ChoiceGroup", choiceGroup.value],
          checkers: ["User", selectedValues(checkers)]
        }
      : {}
    const answer = await createResource("tasks/from-batch-search", "Task", attributes, relations, creating ? undefined : existingTask.value)
    if (answer === undefined) return
    const task = list(answer)[0]
    // A task made here can take the next hits too.
    if (creating && task !== undefined) {
      existingTask.append(h("option", { value: task.id }, text(task.attributes.name)))
      intoExisting.disabled = false
    }
    const { records = 0, skipped = 0 } = (answer.meta ?? {}) as { records?: number; skipped?: number }
    result.replaceChildren(
      `${records} record${records === 1 ? "" : "s"} made, ${skipped} skipped. `,
      task === undefined ? "" : h("a", { href: routeHref(["review", task.id]) }, `Open the task “${text(task.attributes.name)}”`)
    )
  }

  return h(
    "form",
    {
      class: "card",
      "aria-labelledby": "send-to-review-title",
      onsubmit: (event: Event) => {
        event.preventDefault()
        void send()
      }
    },
    h("h2", { id: "send-to-review-title" }, "Send to review"),
    h(
      "fieldset",
      { onchange: showTarget },
      h("legend", {}, "Into"),
      h("label", {}, intoNew, " A new task"),
      h("label", {}, intoExisting, " An existing task")
    ),
    newFields,
    existingFields,
    h(
      "fieldset",
      { class: "query-choices" },
      h("legend", {}, "Queries to include"),
      ...queryBoxes.map((box) => h("label", {}, box, " ", h("code", {}, box.value)))
    ),
    h("div", { class: "form-grid" }, field("Hits per query", hitsPerQuery, "All the hits when empty.")),
    h("p", {}, h("label", {}, skipReviewed, " Skip documents already reviewed in the project")),
    h("p", { class: "actions" }, h("button", { type: "submit" }, "Send to review")),
    result
  )
}
