import { getJson } from "./api.ts"
import { chartFigure } from "./charts.ts"
import { h, routeHref } from "./dom.ts"
import { type Document, list, relationId, type Resource, text } from "./jsonApi.ts"

/** Charts of a review task: progress per round and checker, choices, disagreements and activity over time. */

const done = "#2f6f4f"
const pending = "#b8bec9"
const accent = "#1f5fbf"

/** Every page of a paginated collection (`meta.pagination.pages`), as the statistics need whole counts. */
const allPages = async (path: string) => {
  const resources: Array<Resource> = []
  const included: Array<Resource> = []
  for (let number = 1; ; number++) {
    const page = await getJson<Document>(`${path}&page[size]=100&page[number]=${number}`)
    resources.push(...list(page))
    included.push(...(page?.included ?? []))
    const pages = (page?.meta?.pagination as { pages?: number } | undefined)?.pages ?? 1
    if (page === undefined || number >= pages) return { resources, included }
  }
}

const count = async (path: string) =>
  ((await getJson<Document>(`${path}&page[size]=1`))?.meta?.pagination as { count?: number } | undefined)?.count ?? 0

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 100))
const plural = (value: number, word: string) => `${value} ${word}${value === 1 ? "" : "s"}`

const progressChart = async (taskId: string) => {
  const answer = await getJson<Document>(`/api/v1/task-user-statistics/?filter[task]=${taskId}&include=checker`)
  const checkers = new Map((answer?.included ?? []).map((user) => [user.id, text(user.attributes.username)]))
  const rows = list(answer).map((statistic) => statistic.attributes as { round: number; doneCount: number; pendingCount: number })
  const labels = list(answer).map(
    (statistic, index) => `${checkers.get(relationId(statistic, "checker") ?? "") ?? "?"} · round ${rows[index]!.round}`
  )
  const doneTotal = rows.reduce((sum, row) => sum + row.doneCount, 0)
  const total = doneTotal + rows.reduce((sum, row) => sum + row.pendingCount, 0)
  return chartFigure({
    title: "Progress per round and checker",
    kind: "bar",
    stacked: true,
    labels,
    series: [
      { label: "Done", values: rows.map((row) => row.doneCount), color: done },
      { label: "Pending", values: rows.map((row) => row.pendingCount), color: pending }
    ],
    summary: `${doneTotal} of ${plural(total, "review")} done (${percent(doneTotal, total)} %).`
  }).figure
}

const choicesChart = async (taskId: string, choices: ReadonlyArray<Resource>) => {
  const answer = await getJson<Document>(`/api/v1/task-user-choice-statistics/?filter[task]=${taskId}`)
  const counts = new Map<string, number>()
  for (const statistic of list(answer)) {
    const choice = relationId(statistic, "choice") ?? ""
    counts.set(choice, (counts.get(choice) ?? 0) + Number(statistic.attributes.count))
  }
  const values = choices.map((choice) => counts.get(choice.id) ?? 0)
  return chartFigure({
    title: "Choices made",
    kind: "bar",
    labels: choices.map((choice) => text(choice.attributes.name)),
    series: [{ label: "Reviews", values, color: accent }],
    summary:
      choices.length === 0
        ? "The task has no choices."
        : `${choices.map((choice, index) => `${text(choice.attributes.name)}: ${values[index]}`).join(", ")}.`
  }).figure
}

const disagreementChart = async (taskId: string) => {
  const reviewed = await count(`/api/v1/task-records/?filter[task]=${taskId}&filter[reviewed]=1`)
  const { resources } = await allPages(
    `/api/v1/task-record-reviews/?filter[task_record__task]=${taskId}&filter[task_record__has_disagreements]=1`
  )
  const disagreeing = new Set(resources.map((review) => relationId(review, "taskRecord"))).size
  return chartFigure({
    title: "Disagreements",
    kind: "bar",
    stacked: true,
    labels: ["Reviewed records"],
    series: [
      { label: "Checkers agree", values: [reviewed - disagreeing], color: done },
      { label: "Checkers disagree", values: [disagreeing], color: "#b3261e" }
    ],
    summary: `${disagreeing} of ${plural(reviewed, "reviewed record")} (${percent(disagreeing, reviewed)} %) have checkers who disagree.`
  }).figure
}

const activityChart = async (taskId: string) => {
  // The aggregates take no task filter: the task's days are picked from all of them.
  const { resources } = await allPages("/api/v1/action-aggregates/?include=task")
  const perDay = new Map<string, number>()
  for (const aggregate of resources) {
    if (relationId(aggregate, "task") !== taskId) continue
    const day = text(aggregate.attributes.date)
    perDay.set(day, (perDay.get(day) ?? 0) + Number(aggregate.attributes.count))
  }
  const days = [...perDay.keys()].sort()
  const values = days.map((day) => perDay.get(day) ?? 0)
  const total = values.reduce((sum, value) => sum + value, 0)
  return chartFigure({
    title: "Review activity per day",
    kind: "line",
    labels: days,
    series: [{ label: "Actions", values, color: accent }],
    summary:
      days.length === 0
        ? "No review activity yet."
        : `${plural(total, "action")} over ${plural(days.length, "day")}, from ${days[0]} to ${days[days.length - 1]}.`
  }).figure
}

export const statisticsPage = async (main: HTMLElement, taskId: string) => {
  const task = await getJson<Document>(`/api/v1/tasks/${taskId}/?include=choiceGroup.choices`)
  const resource = list(task)[0]
  if (resource === undefined) {
    main.append(h("h1", {}, "Task not found"), h("p", {}, h("a", { href: routeHref(["review"]) }, "All review tasks")))
    return "Task not found"
  }
  const choices = (task?.included ?? []).filter((included) => included.type === "Choice")
  const charts = await Promise.all([progressChart(taskId), choicesChart(taskId, choices), disagreementChart(taskId), activityChart(taskId)])
  const name = text(resource.attributes.name)
  main.append(
    h("p", { class: "breadcrumb" }, h("a", { href: routeHref(["review", taskId]) }, `← ${name}`)),
    h("h1", {}, `Statistics of ${name}`),
    h("div", { class: "charts" }, ...charts)
  )
  return `Statistics of ${name}`
}
