import { announce, call, getJson, pathOf, sendJson } from "./api.ts"
import { chartFigure, type ChartSpec } from "./charts.ts"
import { basename, field, h, repeatWhile } from "./dom.ts"
import type { Page } from "./page.ts"
import type { Session } from "./session.ts"

interface Task {
  readonly name: string
  readonly state: string
  readonly progress: number | "NaN"
  readonly result?: unknown
  /** Index tasks only, once started: files taken so far and the rate since the task started. */
  readonly rate?: { readonly files: number; readonly filesPerSecond: number }
}

interface TreeEntry {
  readonly type: string
  readonly name: string
  readonly contents?: ReadonlyArray<TreeEntry>
}

/** `org.icij.datashare.tasks.IndexTask@<uuid>` reads as "Index" with a short id. */
const taskLabel = (name: string) => {
  const [type = name, id = ""] = name.split("@")
  return `${(type.split(".").pop() ?? type).replace(/Task$|Runner$/, "")} ${id.slice(0, 8)}`.trim()
}

const percent = (task: Task) => (task.progress === "NaN" ? 0 : Math.round(Math.min(1, Math.max(0, task.progress)) * 100))

/** Folders under dataDir as nested radio buttons; a folder's subfolders load when it is opened. */
const folderPicker = (root: string) => {
  const folder = (entry: { name: string }, depth: number): HTMLLIElement => {
    const children = h("ul", { class: "plain tree-level", hidden: true })
    const label = depth === 0 ? `${entry.name} (data folder)` : basename(entry.name)
    const toggle = h(
      "button",
      {
        type: "button",
        class: "tree-toggle",
        "aria-expanded": "false",
        "aria-label": `Show the folders in ${label}`,
        onclick: async () => {
          const open = toggle.getAttribute("aria-expanded") === "true"
          if (!open && children.childElementCount === 0) {
            const tree = await getJson<TreeEntry>(`/api/tree${pathOf(entry.name)}`)
            const subfolders = (tree?.contents ?? []).filter((child) => child.type === "directory")
            children.replaceChildren(
              ...(subfolders.length === 0
                ? [h("li", { class: "muted" }, "No subfolders")]
                : subfolders.map((child) => folder(child, depth + 1)))
            )
          }
          toggle.setAttribute("aria-expanded", String(!open))
          toggle.textContent = open ? "▸" : "▾"
          children.hidden = open
        }
      },
      "▸"
    )
    return h(
      "li",
      {},
      toggle,
      h("label", {}, h("input", { type: "radio", name: "folder", value: entry.name, checked: depth === 0 }), ` ${label}`),
      children
    )
  }
  return h("ul", { class: "plain tree" }, folder({ name: root }, 0))
}

const indexForm = (session: Session, onStarted: () => void) => {
  const pipelines = h("select", { name: "pipeline" })
  void getJson<ReadonlyArray<string>>("/api/ner/pipelines").then((names) =>
    pipelines.replaceChildren(...(names ?? []).map((name) => h("option", { value: name }, name)))
  )
  const form = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "index-title",
      onsubmit: async (event: Event) => {
        event.preventDefault()
        const folder = new FormData(form).get("folder")
        if (typeof folder !== "string") return announce("Choose a folder first.")
        const started = await sendJson("POST", `/api/task/batchUpdate/index${pathOf(folder)}`, {
          options: { defaultProject: session.project }
        })
        if (started !== undefined) announce(`Indexing ${folder} into ${session.project}.`)
        onStarted()
      }
    },
    h("h2", { id: "index-title" }, "Index a folder"),
    h("fieldset", { class: "tree-fieldset" }, h("legend", {}, "Folder to index"), folderPicker(session.dataDir)),
    h("button", { type: "submit" }, `Index into ${session.project}`)
  )
  const names = h(
    "form",
    {
      class: "inline-form",
      onsubmit: async (event: Event) => {
        event.preventDefault()
        if (
          (await sendJson("POST", `/api/task/findNames/${encodeURIComponent(pipelines.value)}`, {
            options: { defaultProject: session.project }
          })) !== undefined
        ) {
          announce(`Finding named entities with ${pipelines.value}.`)
        }
        onStarted()
      }
    },
    field("Named-entity pipeline", pipelines),
    h("button", { type: "submit" }, "Find named entities")
  )
  return h(
    "div",
    {},
    form,
    h("section", { class: "card", "aria-labelledby": "names-title" }, h("h2", { id: "names-title" }, "Named entities"), names)
  )
}

const taskRow = (task: Task, onChange: () => void) => {
  const value = percent(task)
  const label = taskLabel(task.name)
  return h(
    "li",
    { class: "task" },
    h("span", { class: "task-name", title: task.name }, label),
    h("span", { class: `state state-${task.state.toLowerCase()}` }, task.state),
    h("progress", { max: 100, value, "aria-label": `Progress of ${label}` }, `${value} %`),
    h("span", { class: "percent" }, `${value} %`),
    task.state === "RUNNING"
      ? h(
          "button",
          {
            type: "button",
            "aria-label": `Stop ${label}`,
            onclick: async () => {
              await call(`/api/task/stop/${encodeURIComponent(task.name)}`, { method: "PUT" })
              onChange()
            }
          },
          "Stop"
        )
      : null
  )
}

interface RateSample {
  readonly seconds: number
  readonly filesPerSecond: number
  readonly files: number
}

const rateSpec = (label: string, samples: ReadonlyArray<RateSample>): ChartSpec => {
  const last = samples[samples.length - 1]
  return {
    title: "Indexing rate",
    kind: "line",
    labels: samples.map((sample) => `${sample.seconds} s`),
    series: [{ label: "Files per second", values: samples.map((sample) => Math.round(sample.filesPerSecond * 10) / 10), color: "#1f5fbf" }],
    summary:
      last === undefined
        ? "No index task has run since this page was opened."
        : `${label}: ${last.files} files at ${last.filesPerSecond.toFixed(1)} files/s after ${last.seconds} s.`
  }
}

/**
 * The rate of the index task seen running, sampled at each poll of the task list: the server gives only the rate
 * since the task started, so the curve over time is drawn from what this page saw.
 */
const indexRate = () => {
  const { figure, update } = chartFigure(rateSpec("", []))
  let watched: string | undefined
  let started = 0
  const samples: Array<RateSample> = []
  const seenRunning = new Set<string>()
  const sample = (tasks: ReadonlyArray<Task>) => {
    const indexTasks = tasks.filter((task) => task.name.includes("IndexTask"))
    for (const task of indexTasks) if (task.state === "RUNNING") seenRunning.add(task.name)
    // The running index task; else the one last seen running, whose final rate closes its curve.
    const task =
      indexTasks.find((one) => one.state === "RUNNING") ??
      indexTasks.find((one) => one.name === watched) ??
      indexTasks.find((one) => seenRunning.has(one.name))
    if (task?.rate === undefined) return
    if (task.name !== watched) {
      watched = task.name
      started = Date.now()
      samples.length = 0
    } else if (task.state !== "RUNNING" && samples.length > 0 && samples[samples.length - 1]!.files === task.rate.files) return
    samples.push({
      seconds: Math.round((Date.now() - started) / 100) / 10,
      filesPerSecond: task.rate.filesPerSecond,
      files: task.rate.files
    })
    update(rateSpec(taskLabel(task.name), samples))
  }
  return { figure, sample }
}

export const tasksPage: Page = async (main, session) => {
  const list = h("ol", { class: "plain task-list", "aria-label": "Tasks" })
  const rate = indexRate()
  const refresh = async () => {
    const tasks = (await getJson<ReadonlyArray<Task>>("/api/task/all")) ?? []
    list.replaceChildren(
      ...(tasks.length === 0 ? [h("li", { class: "muted" }, "No tasks.")] : tasks.map((task) => taskRow(task, () => void refresh())))
    )
    rate.sample(tasks)
    return tasks.some((task) => task.state === "RUNNING")
  }
  // One polling loop at a time, running while some task runs.
  let watching = false
  const watch = () => {
    if (watching) return
    watching = true
    repeatWhile(async () => {
      watching = await refresh()
      return watching
    }, 500)
  }
  main.append(
    h("h1", {}, "Tasks"),
    h(
      "div",
      { class: "columns-2" },
      indexForm(session, watch),
      h(
        "section",
        { class: "card", "aria-labelledby": "tasks-title" },
        h("h2", { id: "tasks-title" }, "Tasks and progress"),
        h(
          "p",
          { class: "actions" },
          h(
            "button",
            {
              type: "button",
              onclick: async () => {
                await call("/api/task/clean", { method: "POST" })
                watch()
              }
            },
            "Clean finished tasks"
          )
        ),
        list
      )
    ),
    rate.figure
  )
  watch()
  return "Tasks"
}
