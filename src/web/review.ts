import { adminSection, taskControls } from "./admin.ts"
import { announce, getJson, sendJson } from "./api.ts"
import { loadCatalogue } from "./catalogue.ts"
import { append, field, h, routeHref, uniqueId } from "./dom.ts"
import { type Document, jsonApi, list, relationId, type Resource, reviewMe, text } from "./jsonApi.ts"
import type { Page } from "./page.ts"
import { statisticsPage } from "./statistics.ts"

const roundProgress = async (taskId: string, userId: string) => {
  const statistics = list(await getJson<Document>(`/api/v1/task-user-statistics/?filter[task]=${taskId}&filter[checker]=${userId}`))
  if (statistics.length === 0) return h("p", { class: "muted" }, "No records to review in this task.")
  return h(
    "ul",
    { class: "plain rounds" },
    ...statistics.map((statistic) => {
      const { round, doneCount, totalCount } = statistic.attributes as { round: number; doneCount: number; totalCount: number }
      const id = uniqueId("round")
      return h(
        "li",
        {},
        h("span", { id }, `Round ${round}: ${doneCount} of ${totalCount} reviewed`),
        h("progress", { max: totalCount, value: doneCount, "aria-labelledby": id })
      )
    })
  )
}

const me = async () => (await reviewMe()).id

const taskList = async (main: HTMLElement): Promise<string> => {
  const { id: userId, isStaff } = await reviewMe()
  const tasks = list(await getJson<Document>("/api/v1/tasks/?page[size]=100"))
  // Staff see every task and its controls; after a change the whole list is read again, and the keyboard focus
  // and scroll position go back to the form just used, so that its user carries on where they were.
  const rerender = async () => {
    const usedForm = document.activeElement?.closest("form")?.querySelector("h3")?.textContent
    const scroll = window.scrollY
    main.replaceChildren()
    await taskList(main)
    window.scrollTo(0, scroll)
    const form = [...main.querySelectorAll("form")].find((candidate) => candidate.querySelector("h3")?.textContent === usedForm)
    form?.querySelector<HTMLElement>("input, select")?.focus()
  }
  const items = await Promise.all(
    tasks.map(async (task) =>
      h(
        "li",
        { class: "card" },
        h("h2", {}, h("a", { href: routeHref(["review", task.id]) }, text(task.attributes.name))),
        h("p", {}, text(task.attributes.description)),
        await roundProgress(task.id, userId),
        h("p", {}, h("a", { href: routeHref(["review", task.id, "statistics"]) }, `Statistics of ${text(task.attributes.name)}`)),
        isStaff ? taskControls(task, rerender) : null
      )
    )
  )
  append(main, [
    h("h1", {}, "Review"),
    items.length === 0
      ? h("p", { class: "muted" }, "No review tasks are assigned to you.")
      : h("ul", { class: "plain task-cards" }, ...items),
    isStaff ? adminSection(await loadCatalogue(), rerender) : null
  ])
  return "Review"
}

interface Choice {
  readonly id: string
  readonly name: string
  readonly keys: ReadonlyArray<string>
  readonly requiresAlternative: boolean
}

const putResource = (
  path: string,
  type: string,
  id: string,
  attributes: Readonly<Record<string, unknown>>,
  relationships?: Readonly<Record<string, unknown>>
) =>
  sendJson<Document>(
    "PUT",
    `/api/v1/${path}/${id}/`,
    { data: { type, id, attributes, ...(relationships === undefined ? {} : { relationships }) } },
    jsonApi
  )

/** One record of the queue: its values, the choices (also by their short keys), a note, an alternative value, lock and bookmark. */
const recordCard = (
  review: Resource,
  record: Resource | undefined,
  choices: ReadonlyArray<Choice>,
  alternatives: ReadonlyArray<Resource>,
  onSaved: (advance: boolean) => void
) => {
  const chosen = relationId(review, "choice")
  const locked = record?.attributes.locked === true
  const bookmarked = record?.attributes.bookmarked === true
  const alternative = h(
    "select",
    { name: "alternativeValue" },
    h("option", { value: "" }, "None"),
    ...alternatives.map((value) =>
      h(
        "option",
        { value: text(value.attributes.value), selected: text(value.attributes.value) === text(review.attributes.alternativeValue) },
        text(value.attributes.name)
      )
    )
  )
  const note = h("textarea", { name: "note", rows: 2 }, text(review.attributes.note))
  const choose = async (choice: Choice) => {
    const attributes = choice.requiresAlternative || alternative.value !== "" ? { alternativeValue: alternative.value } : {}
    const saved = await putResource("task-record-reviews", "TaskRecordReview", review.id, attributes, {
      choice: { data: { type: "Choice", id: choice.id } }
    })
    if (saved !== undefined) {
      announce(`Record ${text(record?.attributes.uid)}: ${choice.name}.`)
      onSaved(true)
    }
  }
  const flag = async (name: "locked" | "bookmarked", value: boolean) => {
    if (record !== undefined && (await putResource("task-records", "TaskRecord", record.id, { [name]: value })) !== undefined)
      onSaved(false)
  }
  const card = h(
    "li",
    {
      class: `record card${chosen === undefined ? "" : " reviewed"}`,
      tabindex: 0,
      "data-review": review.id,
      "aria-labelledby": `record-${review.id}`,
      onkeydown: (event: Event) => {
        const key = event as KeyboardEvent
        if (key.target !== card || key.ctrlKey || key.metaKey || key.altKey) return
        const choice = choices.find((candidate) => candidate.keys.includes(key.key.toLowerCase()))
        if (choice !== undefined) {
          key.preventDefault()
          void choose(choice)
        }
      }
    },
    h(
      "h2",
      { id: `record-${review.id}` },
      `Record ${text(record?.attributes.uid)}`,
      chosen === undefined ? "" : ` — ${choices.find((choice) => choice.id === chosen)?.name ?? "reviewed"}`
    ),
    h(
      "dl",
      { class: "metadata" },
      h("dt", {}, "Original value"),
      h("dd", {}, text(record?.attributes.originalValue)),
      h("dt", {}, "Predicted value"),
      h("dd", {}, text(record?.attributes.predictedValue))
    ),
    h(
      "div",
      { class: "actions", role: "group", "aria-label": "Choices" },
      ...choices.map((choice) =>
        h(
          "button",
          {
            type: "button",
            "aria-pressed": String(chosen === choice.id),
            disabled: locked,
            onclick: () => void choose(choice),
            "aria-keyshortcuts": choice.keys.join(" ") || undefined
          },
          choice.name,
          choice.keys.length === 0 ? null : h("kbd", {}, choice.keys.join(", "))
        )
      )
    ),
    h("div", { class: "form-grid" }, alternatives.length === 0 ? null : field("Alternative value", alternative), field("Note", note)),
    h(
      "p",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          onclick: async () =>
            (await putResource("task-record-reviews", "TaskRecordReview", review.id, {
              note: note.value,
              ...(alternative.value === "" ? {} : { alternativeValue: alternative.value })
            })) !== undefined && onSaved(false)
        },
        "Save the note"
      ),
      h(
        "button",
        { type: "button", "aria-pressed": String(locked), onclick: () => void flag("locked", !locked) },
        locked ? "Unlock" : "Lock"
      ),
      h(
        "button",
        { type: "button", "aria-pressed": String(bookmarked), onclick: () => void flag("bookmarked", !bookmarked) },
        bookmarked ? "Bookmarked" : "Bookmark"
      )
    )
  )
  return card
}

const queue = async (main: HTMLElement, taskId: string, focusReview?: string) => {
  const userId = await me()
  const task = await getJson<Document>(`/api/v1/tasks/${taskId}/?include=choiceGroup.choices,choiceGroup.alternativeValues`)
  const taskResource = list(task)[0]
  if (taskResource === undefined) {
    main.append(h("h1", {}, "Task not found"), h("p", {}, h("a", { href: routeHref(["review"]) }, "All review tasks")))
    return "Task not found"
  }
  const included = task?.included ?? []
  const choices: ReadonlyArray<Choice> = included
    .filter((resource) => resource.type === "Choice")
    .map((choice) => ({
      id: choice.id,
      name: text(choice.attributes.name),
      keys: text(choice.attributes.shortkeys)
        .split(/[,\s]+/)
        .filter((key) => key !== "")
        .map((key) => key.toLowerCase()),
      requiresAlternative: choice.attributes.requireAlternativeValue === true
    }))
  const alternatives = included.filter((resource) => resource.type === "AlternativeValue")
  const reviews = await getJson<Document>(
    `/api/v1/task-record-reviews/?filter[checker]=${userId}&filter[task_record__task]=${taskId}&include=taskRecord&sort=task_record__id&page[size]=50`
  )
  const records = new Map(
    (reviews?.included ?? []).filter((resource) => resource.type === "TaskRecord").map((record) => [record.id, record])
  )
  const reviewList = list(reviews)
  const rerender = async (afterReview: string, advance: boolean) => {
    const index = reviewList.findIndex((review) => review.id === afterReview)
    await queue(main, taskId, advance ? (reviewList[index + 1]?.id ?? afterReview) : afterReview)
  }
  const cards = reviewList.map((review) =>
    recordCard(
      review,
      records.get(relationId(review, "taskRecord") ?? ""),
      choices,
      alternatives,
      (advance) => void rerender(review.id, advance)
    )
  )
  const items = h(
    "ol",
    {
      class: "plain records",
      "aria-label": "Records to review",
      onkeydown: (event: Event) => {
        const key = event as KeyboardEvent
        const index = cards.findIndex((card) => card === key.target)
        if (index === -1) return
        const step = key.key === "ArrowDown" || key.key === "j" ? 1 : key.key === "ArrowUp" || key.key === "k" ? -1 : 0
        if (step === 0) return
        key.preventDefault()
        cards[Math.min(cards.length - 1, Math.max(0, index + step))]?.focus()
      }
    },
    ...cards
  )
  const shortcuts = choices.filter((choice) => choice.keys.length > 0).map((choice) => `${choice.keys.join("/")}: ${choice.name}`)
  // Replaced in one step once everything is read, so that a re-render after a save does not flash.
  main.replaceChildren(
    h("p", { class: "breadcrumb" }, h("a", { href: routeHref(["review"]) }, "← All review tasks")),
    h("h1", {}, text(taskResource.attributes.name)),
    await roundProgress(taskId, userId),
    h("p", {}, h("a", { href: routeHref(["review", taskId, "statistics"]) }, "Statistics and charts")),
    h(
      "p",
      { class: "hint", id: "review-keys" },
      `Focus a record, then press ${[...shortcuts, "↑/↓ or k/j: previous or next record"].join("; ")}.`
    ),
    items
  )
  if (focusReview !== undefined) main.querySelector<HTMLElement>(`[data-review="${focusReview}"]`)?.focus()
  return text(taskResource.attributes.name)
}

export const reviewPage: Page = (main, _session, route) => {
  const [taskId, view] = route.parts
  if (taskId === undefined || taskId === "") return taskList(main)
  return view === "statistics" ? statisticsPage(main, taskId) : queue(main, taskId)
}
