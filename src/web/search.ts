import { getJson, searchIndex } from "./api.ts"
import { basename, type Child, field, h, marked, routeHref } from "./dom.ts"
import type { Page } from "./page.ts"
import {
  type Bucket,
  documentSearch,
  entityCategories,
  entitySearch,
  type Filters,
  filtersOf,
  pageSize,
  queryOf,
  type SearchAnswer,
  type TermFacet
} from "./searchQuery.ts"

const facetTitles: Readonly<Record<TermFacet, string>> = { contentType: "Content type", language: "Language", tags: "Tags" }

const entityTitles: Readonly<Record<(typeof entityCategories)[number], string>> = {
  PERSON: "People",
  ORGANIZATION: "Organizations",
  LOCATION: "Locations",
  EMAIL: "E-mail addresses"
}

const go = (filters: Filters) => {
  location.hash = routeHref(["search"], queryOf(filters))
}

/** A group of checkboxes, one per bucket; a selected value stays listed even when it has no bucket. */
const checkboxFacet = (
  title: string,
  buckets: ReadonlyArray<Bucket>,
  selected: ReadonlyArray<string>,
  onChange: (values: ReadonlyArray<string>) => void
) => {
  const keys = [...buckets.map((bucket) => bucket.key), ...selected.filter((value) => !buckets.some((bucket) => bucket.key === value))]
  const counts = new Map(buckets.map((bucket) => [bucket.key, bucket.doc_count]))
  const boxes = keys.map((key) =>
    h(
      "li",
      {},
      h(
        "label",
        {},
        h("input", {
          type: "checkbox",
          value: key,
          checked: selected.includes(key),
          onchange: (event: Event) => {
            const box = event.target as HTMLInputElement
            onChange(box.checked ? [...selected, key] : selected.filter((value) => value !== key))
          }
        }),
        ` ${key} `,
        h("span", { class: "count" }, counts.get(key) ?? 0)
      )
    )
  )
  return h(
    "fieldset",
    { class: "facet" },
    h("legend", {}, title),
    boxes.length === 0 ? h("p", { class: "muted" }, "None") : h("ul", { class: "plain" }, ...boxes)
  )
}

const pathFacet = (filters: Filters, buckets: ReadonlyArray<Bucket>) => {
  const parent = filters.path === "" ? null : filters.path.replace(/\/[^/]*\/?$/, "")
  return h(
    "nav",
    { class: "facet", "aria-labelledby": "path-facet" },
    h("h2", { id: "path-facet", class: "legend" }, "Folders"),
    filters.path === ""
      ? null
      : h(
          "p",
          {},
          "In ",
          h("code", {}, filters.path),
          " ",
          h("a", { href: routeHref(["search"], queryOf({ ...filters, from: 0, path: parent ?? "" })) }, "Up one folder")
        ),
    buckets.length === 0
      ? h("p", { class: "muted" }, "No subfolders")
      : h(
          "ul",
          { class: "plain" },
          ...buckets.map((bucket) =>
            h(
              "li",
              {},
              h("a", { href: routeHref(["search"], queryOf({ ...filters, from: 0, path: bucket.key })) }, `${basename(bucket.key)}/`),
              " ",
              h("span", { class: "count" }, bucket.doc_count)
            )
          )
        )
  )
}

const resultItem = (project: string, filters: Filters, hit: SearchAnswer["hits"]["hits"][number]) => {
  const source = hit._source
  const path = String(source.path ?? hit._id)
  const title = typeof source.title === "string" && source.title !== "" ? source.title : basename(path)
  const routing = String(source.rootDocument ?? hit._routing ?? hit._id)
  const href = routeHref(["document", project, hit._id], new URLSearchParams({ routing, q: filters.q }))
  const tags = Array.isArray(source.tags) ? (source.tags as ReadonlyArray<string>) : []
  return h(
    "li",
    { class: "result" },
    h("h3", {}, h("a", { href }, title)),
    h("p", { class: "meta" }, h("code", {}, path), ` · ${String(source.contentType ?? "")} · ${String(source.language ?? "")}`),
    ...(hit.highlight?.content ?? []).map((fragment) => h("p", { class: "snippet" }, ...marked(fragment))),
    tags.length === 0 ? null : h("p", { class: "tags" }, ...tags.map((tag) => h("span", { class: "tag" }, tag)))
  )
}

const pager = (filters: Filters, total: number) => {
  const last = Math.min(filters.from + pageSize, total)
  const link = (label: string, from: number, enabled: boolean) =>
    enabled ? h("a", { class: "button", href: routeHref(["search"], queryOf({ ...filters, from })) }, label) : null
  return h(
    "nav",
    { class: "pager", "aria-label": "Result pages" },
    link("Previous page", Math.max(0, filters.from - pageSize), filters.from > 0),
    h("span", {}, total === 0 ? "No results" : `Results ${filters.from + 1}–${last} of ${total}`),
    link("Next page", filters.from + pageSize, last < total)
  )
}

export const searchPage: Page = async (main, session, route) => {
  const filters = filtersOf(route.query)
  const input = h("input", {
    type: "search",
    name: "q",
    value: filters.q,
    placeholder: 'e.g. "annual report" AND contentType:"application/pdf"'
  })
  const form = h(
    "form",
    {
      role: "search",
      class: "search-form",
      onsubmit: (event: Event) => {
        event.preventDefault()
        go({ ...filters, q: input.value, from: 0 })
      }
    },
    field("Search query (Lucene syntax)", input),
    h("button", { type: "submit" }, "Search")
  )
  const starredIds = (await getJson<ReadonlyArray<string>>(`/api/${encodeURIComponent(session.project)}/documents/starred`)) ?? []
  const [answer, ...entityAnswers] = await Promise.all([
    searchIndex<SearchAnswer>(session.project, "_search", documentSearch(filters, starredIds, session.dataDir)),
    ...entityCategories.map((category) => searchIndex<SearchAnswer>(session.project, "_search", entitySearch(category)))
  ])
  const buckets = (name: string) => answer?.aggregations?.[name]?.buckets ?? []
  const termFacet = (facet: TermFacet) =>
    checkboxFacet(facetTitles[facet], buckets(facet), filters.terms[facet], (values) =>
      go({ ...filters, from: 0, terms: { ...filters.terms, [facet]: values } })
    )
  const entityFacets: ReadonlyArray<Child> = entityCategories.map((category, index) => {
    const found = entityAnswers[index]?.aggregations?.byMentions?.buckets ?? []
    if (found.length === 0 && (filters.entities[category] ?? []).length === 0) return null
    return checkboxFacet(entityTitles[category], found, filters.entities[category] ?? [], (values) =>
      go({ ...filters, from: 0, entities: { ...filters.entities, [category]: values } })
    )
  })
  const starred = h(
    "fieldset",
    { class: "facet" },
    h("legend", {}, "Starred"),
    h(
      "label",
      {},
      h("input", {
        type: "checkbox",
        checked: filters.starred,
        onchange: (event: Event) => go({ ...filters, from: 0, starred: (event.target as HTMLInputElement).checked })
      }),
      " Starred documents only ",
      h("span", { class: "count" }, starredIds.length)
    )
  )
  const total = answer?.hits.total.value ?? 0
  main.append(
    h("h1", { class: "visually-hidden" }, "Search"),
    form,
    h(
      "div",
      { class: "search-layout" },
      h(
        "aside",
        { class: "facets", "aria-label": "Filters" },
        // Folded on narrow screens so that the results come first in view; open on wide ones.
        h(
          "details",
          { open: window.matchMedia("(min-width: 801px)").matches },
          h("summary", {}, "Filters"),
          termFacet("contentType"),
          termFacet("language"),
          termFacet("tags"),
          starred,
          pathFacet(filters, buckets("dirname")),
          ...entityFacets
        )
      ),
      h(
        "section",
        { class: "results", "aria-labelledby": "results-title" },
        h("h2", { id: "results-title" }, filters.q === "" ? "All documents" : `Results for ${filters.q}`),
        pager(filters, total),
        h(
          "ol",
          { class: "plain results-list", start: filters.from + 1 },
          ...(answer?.hits.hits ?? []).map((hit) => resultItem(session.project, filters, hit))
        )
      )
    )
  )
  return filters.q === "" ? "Search" : `Search: ${filters.q}`
}
