import { announce, call, downloadLink, getJson, sendJson } from "./api.ts"
import { loadCatalogue } from "./catalogue.ts"
import { append, field, h, later, repeatWhile, routeHref } from "./dom.ts"
import { reviewMe } from "./jsonApi.ts"
import type { Page } from "./page.ts"
import { sendToReviewForm } from "./sendToReview.ts"
import type { Session } from "./session.ts"

interface BatchSearch {
  readonly uuid: string
  readonly name: string
  readonly description: string
  readonly state: string
  readonly date: string
  readonly nbQueries: number
  readonly nbResults: number
  readonly errorMessage: string | null
  readonly queries?: Readonly<Record<string, number>>
}

interface ResultRow {
  readonly query: string
  readonly project: string | null
  readonly documentId: string
  readonly rootId: string
  readonly documentPath: string
  readonly contentType: string
  readonly documentNumber: number
}

const resultPageSize = 20
const finished = (state: string) => state === "SUCCESS" || state === "FAILURE"

const createForm = (session: Session, onCreated: () => void) => {
  const name = h("input", { name: "name", required: true })
  const description = h("input", { name: "description" })
  const csvFile = h("input", { name: "csvFile", type: "file", accept: ".csv,.txt,text/csv,text/plain", required: true })
  const fuzziness = h("input", { name: "fuzziness", type: "number", min: 0, max: 2, value: 0 })
  const phraseMatches = h("input", { name: "phrase_matches", type: "checkbox", value: "true" })
  const form = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "new-batch-title",
      onsubmit: async (event: Event) => {
        event.preventDefault()
        const body = new FormData(form)
        if (!phraseMatches.checked) body.set("phrase_matches", "false")
        if ((await call(`/api/batch/search/${encodeURIComponent(session.project)}`, { method: "POST", body })) !== undefined) {
          announce(`Batch search “${name.value}” created.`)
          form.reset()
          onCreated()
        }
      }
    },
    h("h2", { id: "new-batch-title" }, "New batch search"),
    h(
      "div",
      { class: "form-grid" },
      field("Name", name),
      field("Description", description),
      field("Queries (CSV file, one query per line)", csvFile),
      field("Fuzziness", fuzziness, "Edits allowed per word, or the slop of a phrase"),
      h("div", { class: "field" }, h("label", {}, phraseMatches, " Match the queries as phrases"))
    ),
    h("button", { type: "submit" }, `Run on ${session.project}`)
  )
  return form
}

const copyAndDelete = (batch: BatchSearch, onChange: () => void) => [
  h(
    "button",
    {
      type: "button",
      "aria-label": `Copy ${batch.name}`,
      onclick: async () => {
        const copied = await call(`/api/batch/search/copy/${batch.uuid}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: `${batch.name} (copy)`, description: batch.description })
        })
        if (copied !== undefined) announce(`Copied ${batch.name}.`)
        onChange()
      }
    },
    "Copy"
  ),
  h(
    "button",
    {
      type: "button",
      class: "danger",
      "aria-label": `Delete ${batch.name}`,
      disabled: !finished(batch.state),
      onclick: async () => {
        if ((await call(`/api/batch/search/${batch.uuid}`, { method: "DELETE" })) !== undefined) announce(`Deleted ${batch.name}.`)
        onChange()
      }
    },
    "Delete"
  )
]

const listTable = (batches: ReadonlyArray<BatchSearch>, onChange: () => void) =>
  batches.length === 0
    ? h("p", { class: "muted" }, "No batch searches yet.")
    : h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          {},
          h("caption", {}, "Your batch searches"),
          h(
            "thead",
            {},
            h("tr", {}, ...["Name", "State", "Queries", "Results", "Date", "Actions"].map((title) => h("th", { scope: "col" }, title)))
          ),
          h(
            "tbody",
            {},
            ...batches.map((batch) =>
              h(
                "tr",
                {},
                h("th", { scope: "row" }, h("a", { href: routeHref(["batch", batch.uuid]) }, batch.name)),
                h("td", {}, h("span", { class: `state state-${batch.state.toLowerCase()}` }, batch.state)),
                h("td", {}, batch.nbQueries),
                h("td", {}, batch.nbResults),
                h("td", {}, new Date(batch.date).toLocaleString()),
                h("td", { class: "actions" }, ...copyAndDelete(batch, onChange))
              )
            )
          )
        )
      )

const listPage = async (main: HTMLElement, session: Session) => {
  const list = h("section", { "aria-labelledby": "batch-list-title" }, h("h2", { id: "batch-list-title" }, "Batch searches"))
  const refresh = async () => {
    const batches = (await getJson<ReadonlyArray<BatchSearch>>("/api/batch/search")) ?? []
    list.replaceChildren(
      h("h2", { id: "batch-list-title" }, "Batch searches"),
      listTable(batches, () => repeatWhile(refresh, 1000))
    )
    return batches.some((batch) => !finished(batch.state))
  }
  main.append(
    h("h1", {}, "Batch searches"),
    createForm(session, () => repeatWhile(refresh, 1000)),
    list
  )
  repeatWhile(refresh, 1000)
  return "Batch searches"
}

const resultsTable = (uuid: string, total: number) => {
  const section = h("section", { "aria-labelledby": "batch-results-title" })
  const show = async (from: number) => {
    const rows =
      (await sendJson<ReadonlyArray<ResultRow>>("POST", `/api/batch/search/result/${uuid}`, { from, size: resultPageSize })) ?? []
    const last = Math.min(from + rows.length, total)
    section.replaceChildren(
      h("h2", { id: "batch-results-title" }, "Results"),
      h(
        "nav",
        { class: "pager", "aria-label": "Result pages" },
        h(
          "button",
          { type: "button", disabled: from === 0, onclick: () => void show(Math.max(0, from - resultPageSize)) },
          "Previous page"
        ),
        h("span", {}, total === 0 ? "No results" : `Results ${from + 1}–${last} of ${total}`),
        h("button", { type: "button", disabled: last >= total, onclick: () => void show(from + resultPageSize) }, "Next page")
      ),
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          {},
          h("caption", { class: "visually-hidden" }, "Documents matching the queries"),
          h("thead", {}, h("tr", {}, ...["#", "Query", "Document", "Content type"].map((title) => h("th", { scope: "col" }, title)))),
          h(
            "tbody",
            {},
            ...rows.map((row) =>
              h(
                "tr",
                {},
                h("td", {}, row.documentNumber),
                h("td", {}, row.query),
                h(
                  "td",
                  {},
                  h(
                    "a",
                    {
                      href: routeHref(
                        ["document", row.project ?? "", row.documentId],
                        new URLSearchParams({ routing: row.rootId, q: row.query })
                      )
                    },
                    row.documentPath
                  )
                ),
                h("td", {}, row.contentType)
              )
            )
          )
        )
      )
    )
  }
  void show(0)
  return section
}

const detailPage = async (main: HTMLElement, uuid: string) => {
  const batch = await getJson<BatchSearch>(`/api/batch/search/${uuid}?withQueries=true`)
  if (batch === undefined || batch === null) {
    main.append(h("h1", {}, "Batch search not found"), h("p", {}, h("a", { href: routeHref(["batch"]) }, "All batch searches")))
    return "Batch search not found"
  }
  if (!finished(batch.state)) {
    later(() => {
      main.replaceChildren()
      void detailPage(main, uuid)
    }, 1000)
  }
  const queries = Object.entries(batch.queries ?? {})
  // Staff may send a finished search's hits to review; the API refuses everyone else.
  const canSend = batch.state === "SUCCESS" && (await reviewMe()).isStaff
  const sendForm = canSend
    ? sendToReviewForm(
        uuid,
        batch.name,
        queries.map(([query]) => query),
        await loadCatalogue()
      )
    : null
  append(main, [
    h("p", { class: "breadcrumb" }, h("a", { href: routeHref(["batch"]) }, "← All batch searches")),
    h("h1", {}, batch.name),
    h(
      "p",
      {},
      `State: `,
      h("span", { class: `state state-${batch.state.toLowerCase()}` }, batch.state),
      ` · ${batch.nbQueries} queries · ${batch.nbResults} results`
    ),
    batch.errorMessage === null ? null : h("p", { class: "note note-danger", role: "note" }, batch.errorMessage),
    h(
      "p",
      { class: "actions" },
      downloadLink(`/api/batch/search/result/csv/${uuid}`, `${uuid}.csv`, "Download the results (CSV)"),
      ...copyAndDelete(batch, () => (location.hash = routeHref(["batch"])))
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "queries-title" },
      h("h2", { id: "queries-title" }, "Queries"),
      h(
        "ul",
        { class: "plain query-list" },
        ...queries.map(([query, count]) => h("li", {}, h("code", {}, query), ` ${count} result${count === 1 ? "" : "s"}`))
      )
    ),
    sendForm,
    resultsTable(uuid, batch.nbResults)
  ])
  return batch.name
}

export const batchPage: Page = (main, session, route) => {
  const [uuid] = route.parts
  return uuid === undefined || uuid === "" ? listPage(main, session) : detailPage(main, uuid)
}
