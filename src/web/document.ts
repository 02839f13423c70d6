import { call, downloadLink, getJson, pathOf, searchIndex, sendJson } from "./api.ts"
import { basename, field, formatBytes, h, routeHref } from "./dom.ts"
import type { Page } from "./page.ts"
import { plainWords, type SearchAnswer } from "./searchQuery.ts"

interface Tag {
  readonly label: string
}
interface Note {
  readonly note: string
  readonly variant: string
}
interface Located {
  readonly project: string
  readonly id: string
  readonly routing: string
}

const documentsUrl = ({ project, id, routing }: Located, endpoint: string, query: Readonly<Record<string, string>> = {}) =>
  `/api/${encodeURIComponent(project)}/documents/${endpoint}/${encodeURIComponent(id)}?${new URLSearchParams({ routing, ...query }).toString()}`

interface Occurrence {
  readonly offset: number
  readonly length: number
}

/** The text with every occurrence (character offsets from searchContent) in a `<mark>`, numbered in text order. */
const markedText = (content: string, occurrences: ReadonlyArray<Occurrence>) => {
  const nodes: Array<Node> = []
  let position = 0
  occurrences.forEach(({ offset, length }, index) => {
    nodes.push(
      document.createTextNode(content.slice(position, offset)),
      h("mark", { id: `match-${index}` }, content.slice(offset, offset + length))
    )
    position = offset + length
  })
  nodes.push(document.createTextNode(content.slice(position)))
  return nodes
}

/** The words of a query, each once: the document is searched for each of them rather than for the whole phrase. */
const wordsOf = (query: string) => [...new Set(query.split(/\s+/).filter((word) => word !== ""))]

/** Occurrences of several words in text order; where two overlap, the first one is kept. */
const inTextOrder = (found: ReadonlyArray<Occurrence>) => {
  const sorted = [...found].sort((a, b) => a.offset - b.offset || b.length - a.length)
  const kept: Array<Occurrence> = []
  for (const occurrence of sorted) {
    const last = kept[kept.length - 1]
    if (last === undefined || occurrence.offset >= last.offset + last.length) kept.push(occurrence)
  }
  return kept
}

/** The document's text, searchable in place: occurrences are marked and stepped through with Previous and Next. */
const textSection = async (located: Located, initialQuery: string) => {
  const content = (await getJson<{ content: string }>(documentsUrl(located, "content")))?.content ?? ""
  const text = h("div", { class: "document-text", tabindex: 0, role: "region", "aria-label": "Document text" })
  const counter = h("p", { class: "count-line", "aria-live": "polite" })
  let current = -1
  let count = 0
  const show = (index: number) => {
    text.querySelector("mark.current")?.classList.remove("current")
    current = (index + count) % count
    const mark = text.querySelector<HTMLElement>(`#match-${current}`)
    mark?.classList.add("current")
    mark?.scrollIntoView({ block: "center" })
    counter.textContent = `Occurrence ${current + 1} of ${count}`
  }
  const find = async (query: string) => {
    current = -1
    const words = wordsOf(query)
    const perWord = await Promise.all(
      words.map(async (word) => {
        const found = await getJson<{ offsets: ReadonlyArray<number> }>(documentsUrl(located, "searchContent", { query: word }))
        return (found?.offsets ?? []).map((offset) => ({ offset, length: word.length }))
      })
    )
    const occurrences = inTextOrder(perWord.flat())
    count = occurrences.length
    text.replaceChildren(...markedText(content, occurrences))
    const quoted = words.map((word) => `“${word}”`)
    counter.textContent =
      words.length === 0
        ? ""
        : count === 0
          ? `No occurrence of ${quoted.join(" or ")}`
          : words.length === 1
            ? `${count} occurrence${count === 1 ? "" : "s"} of ${quoted[0]}`
            : `${count} occurrence${count === 1 ? "" : "s"}: ${words.map((_, index) => `${perWord[index]!.length} of ${quoted[index]}`).join(", ")}`
  }
  const input = h("input", { type: "search", value: initialQuery })
  const form = h(
    "form",
    {
      class: "inline-form",
      role: "search",
      "aria-label": "In this document",
      onsubmit: (event: Event) => {
        event.preventDefault()
        void find(input.value)
      }
    },
    field("Find in this document", input, "Each word is searched for and highlighted."),
    h("button", { type: "submit" }, "Find"),
    h("button", { type: "button", onclick: () => count > 0 && show(current - 1) }, "Previous"),
    h("button", { type: "button", onclick: () => count > 0 && show(current + 1) }, "Next")
  )
  await find(initialQuery)
  return h(
    "section",
    { class: "card text-card", "aria-labelledby": "text-title" },
    h("h2", { id: "text-title" }, "Text"),
    form,
    counter,
    text
  )
}

const metadataSection = (source: Readonly<Record<string, unknown>>) => {
  const metadata = (source.metadata ?? {}) as Readonly<Record<string, unknown>>
  const rows: ReadonlyArray<readonly [string, unknown]> = [
    ["Path", source.path],
    ["Content type", source.contentType],
    ["Language", source.language],
    ["Size", typeof source.contentLength === "number" ? formatBytes(source.contentLength) : undefined],
    ["Extraction level", source.extractionLevel],
    ["Author", metadata.tika_metadata_dc_creator ?? metadata.tika_metadata_message_from],
    ["Created", metadata.tika_metadata_dcterms_created],
    ["Indexed", source.extractionDate]
  ]
  return h(
    "section",
    { class: "card", "aria-labelledby": "metadata-title" },
    h("h2", { id: "metadata-title" }, "Metadata"),
    h(
      "dl",
      { class: "metadata" },
      ...rows
        .filter(([, value]) => value !== undefined && value !== null)
        .flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, String(value))])
    )
  )
}

const entitiesSection = async (located: Located) => {
  const answer = await searchIndex<SearchAnswer>(located.project, "_search", {
    size: 200,
    query: { bool: { must: [{ term: { type: "NamedEntity" } }, { parent_id: { type: "NamedEntity", id: located.id } }] } }
  })
  const byCategory = new Map<string, Set<string>>()
  for (const hit of answer?.hits.hits ?? []) {
    const category = String(hit._source.category ?? "UNKNOWN")
    byCategory.set(category, (byCategory.get(category) ?? new Set()).add(String(hit._source.mention ?? hit._source.mentionNorm ?? "")))
  }
  return h(
    "section",
    { class: "card", "aria-labelledby": "entities-title" },
    h("h2", { id: "entities-title" }, "Named entities"),
    byCategory.size === 0
      ? h("p", { class: "muted" }, "No named entities found in this document.")
      : h(
          "dl",
          { class: "metadata" },
          ...[...byCategory].flatMap(([category, mentions]) => [h("dt", {}, category.toLowerCase()), h("dd", {}, [...mentions].join(", "))])
        )
  )
}

/** Tags, star and read mark: the caller's marks on this document; a change redraws this section only. */
const marksSection = async (located: Located, userId: string): Promise<HTMLElement> => {
  const project = encodeURIComponent(located.project)
  const [tags, starred, read] = await Promise.all([
    getJson<ReadonlyArray<Tag>>(`/api/${project}/documents/tags/${encodeURIComponent(located.id)}`),
    getJson<ReadonlyArray<string>>(`/api/${project}/documents/starred`),
    getJson<ReadonlyArray<string>>(`/api/${project}/documents/recommendations?userids=${encodeURIComponent(userId)}`)
  ])
  const isStarred = (starred ?? []).includes(located.id)
  const isRead = (read ?? []).includes(located.id)
  // Redrawn in place, with the focus back on the control that was used (or the tag field).
  const redraw = async (focus: string) => {
    const fresh = await marksSection(located, userId)
    section.replaceWith(fresh)
    fresh.querySelector<HTMLElement>(`[data-control="${focus}"]`)?.focus()
  }
  const toggle = async (on: string, off: string, active: boolean) => {
    if ((await sendJson("POST", `/api/${project}/documents/batchUpdate/${active ? off : on}`, [located.id])) !== undefined) await redraw(on)
  }
  const tagInput = h("input", { name: "tag", maxlength: 64, required: true, autocomplete: "off", "data-control": "tag" })
  const tagForm = h(
    "form",
    {
      class: "inline-form",
      onsubmit: async (event: Event) => {
        event.preventDefault()
        if ((await sendJson("PUT", documentsUrl(located, "tags"), [tagInput.value.trim()])) !== undefined) await redraw("tag")
      }
    },
    field("New tag", tagInput),
    h("button", { type: "submit" }, "Add tag")
  )
  const tagList = (tags ?? []).map((tag) =>
    h(
      "li",
      { class: "tag" },
      tag.label,
      h(
        "button",
        {
          type: "button",
          class: "link",
          "aria-label": `Remove tag ${tag.label}`,
          onclick: async () => {
            if ((await sendJson("PUT", documentsUrl(located, "untag"), [tag.label])) !== undefined) await redraw("tag")
          }
        },
        "×"
      )
    )
  )
  const section = h(
    "section",
    { class: "card", "aria-labelledby": "marks-title" },
    h("h2", { id: "marks-title" }, "Your marks"),
    h(
      "p",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          "data-control": "star",
          "aria-pressed": String(isStarred),
          onclick: () => void toggle("star", "unstar", isStarred)
        },
        isStarred ? "★ Starred" : "☆ Star"
      ),
      h(
        "button",
        {
          type: "button",
          "data-control": "recommend",
          "aria-pressed": String(isRead),
          onclick: () => void toggle("recommend", "unrecommend", isRead)
        },
        isRead ? "Marked as read" : "Mark as read"
      )
    ),
    h("h3", {}, "Tags"),
    tagList.length === 0
      ? h("p", { class: "muted" }, "No tags yet.")
      : h("ul", { class: "plain tag-list", "aria-label": "Tags" }, ...tagList),
    tagForm
  )
  return section
}

const notesSection = async (project: string, path: string) => {
  const notes = (await getJson<ReadonlyArray<Note>>(`/api/${encodeURIComponent(project)}/notes/${pathOf(path.replace(/^\//, ""))}`)) ?? []
  if (notes.length === 0) return null
  return h(
    "section",
    { class: "card", "aria-labelledby": "notes-title" },
    h("h2", { id: "notes-title" }, "Notes for this path"),
    ...notes.map((note) => h("p", { class: `note note-${note.variant}`, role: "note" }, note.note))
  )
}

export const documentPage: Page = async (main, session, route) => {
  const [project = session.project, id = ""] = route.parts
  const located: Located = { project, id, routing: route.query.get("routing") ?? id }
  const query = route.query.get("q") ?? ""
  const source = await call(
    `/api/index/search/${encodeURIComponent(project)}/_doc/${encodeURIComponent(id)}?routing=${encodeURIComponent(located.routing)}&_source_excludes=content,content_translated`
  )
  const document = source === undefined ? undefined : ((await source.json()) as { _source: Readonly<Record<string, unknown>> })
  if (document === undefined) {
    main.append(h("h1", {}, "Document not found"), h("p", {}, h("a", { href: routeHref(["search"]) }, "Back to the search")))
    return "Document not found"
  }
  const path = String(document._source.path ?? id)
  const title = typeof document._source.title === "string" && document._source.title !== "" ? document._source.title : basename(path)
  const [text, entities, marks, notes] = await Promise.all([
    textSection(located, plainWords(query)),
    entitiesSection(located),
    marksSection(located, session.userId),
    notesSection(project, path)
  ])
  main.append(
    h(
      "p",
      { class: "breadcrumb" },
      h("a", { href: routeHref(["search"], new URLSearchParams(query === "" ? {} : { q: query })) }, "← Back to the results")
    ),
    h("h1", {}, title),
    h("p", {}, downloadLink(documentsUrl(located, "src"), basename(path), "Download the original file")),
    h(
      "div",
      { class: "document-layout" },
      h("div", { class: "document-main" }, notes, text),
      h("div", { class: "document-side" }, marks, metadataSection(document._source), entities)
    )
  )
  return title
}
