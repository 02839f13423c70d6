import { call, getJson, sendJson } from "./api.ts"

/** The review API's JSON:API documents, as the page reads and writes them. */
export const jsonApi = "application/vnd.api+json"

type Linkage = { readonly type: string; readonly id: string }
export interface Resource {
  readonly type: string
  readonly id: string
  readonly attributes: Readonly<Record<string, unknown>>
  readonly relationships?: Readonly<Record<string, { readonly data: Linkage | ReadonlyArray<Linkage> | null }>>
}
export interface Document {
  readonly data: Resource | ReadonlyArray<Resource>
  readonly included?: ReadonlyArray<Resource>
  readonly meta?: Readonly<Record<string, unknown>>
}

export const list = (document: Document | undefined | null) =>
  document === undefined || document === null ? [] : Array.isArray(document.data) ? document.data : [document.data as Resource]

export const relationId = (resource: Resource, name: string) => {
  const data = resource.relationships?.[name]?.data
  return data === null || data === undefined || Array.isArray(data) ? undefined : (data as Linkage).id
}

export const text = (value: unknown) => (value === null || value === undefined ? "" : String(value))

/** Relationships written as `{name: [type, id or ids]}`. */
export type Relations = Readonly<Record<string, readonly [string, string | ReadonlyArray<string>]>>

const relationships = (relations: Relations) =>
  Object.fromEntries(
    Object.entries(relations).map(([name, [type, id]]) => [
      name,
      { data: typeof id === "string" ? { type, id } : id.map((one) => ({ type, id: one })) }
    ])
  )

/**
 * POST `/api/v1/<path>/`: answers the whole document (its `meta` says what a bridge call did) or undefined. An `id`
 * is sent only where the API reads one in a POST (adding a batch search's hits to an existing task).
 */
export const createResource = (
  path: string,
  type: string,
  attributes: Readonly<Record<string, unknown>>,
  relations: Relations = {},
  id?: string
) =>
  sendJson<Document>(
    "POST",
    `/api/v1/${path}/`,
    { data: { type, ...(id === undefined ? {} : { id }), attributes, relationships: relationships(relations) } },
    jsonApi
  )

/** PATCH `/api/v1/<path>/<id>/` with only the attributes sent. */
export const updateResource = (
  path: string,
  type: string,
  id: string,
  attributes: Readonly<Record<string, unknown>>,
  relations: Relations = {}
) =>
  sendJson<Document>(
    "PATCH",
    `/api/v1/${path}/${id}/`,
    { data: { type, id, attributes, relationships: relationships(relations) } },
    jsonApi
  )

/** A multipart upload (CSV imports, media ZIPs); answers the document, whose `meta` holds the counts. */
export const uploadForm = async (path: string, form: FormData, report?: (message: string) => void) => {
  const response = await call(`/api/v1/${path}/`, { method: "POST", body: form }, report)
  return response === undefined ? undefined : ((await response.json()) as Document)
}

export interface Me {
  readonly id: string
  readonly isStaff: boolean
}

/** The signed-in user of the review API; staff see the administration controls (the API refuses others anyway). */
export const reviewMe = async (): Promise<Me> => {
  const me = list(await getJson<Document>("/api/v1/users/me/"))[0]
  return { id: me?.id ?? "", isStaff: me?.attributes.isStaff === true }
}
