import { getJson } from "./api.ts"
import { h } from "./dom.ts"
import { type Document, list, type Resource, text } from "./jsonApi.ts"

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

/** The choices or alternative values of a group: its relationship lists the ids, the resources are in `included`. */
export const inGroup = (catalogue: Catalogue, group: Resource, relationship: string, type: string) => {
  const linked = group.relationships?.[relationship]?.data
  const ids = new Set(Array.isArray(linked) ? linked.map((one) => one.id) : [])
  return catalogue.groupContents.filter((resource) => resource.type === type && ids.has(resource.id))
}
