import { JSONSchema, type Schema } from "effect"
import type { Method, RouteDoc } from "./Router.ts"

/** What the generator reads from a route: its method, path and doc. */
export interface DocumentedRoute {
  readonly method: Method
  readonly path: string
  readonly doc?: RouteDoc
}

type JsonObject = Record<string, unknown>

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)

const componentPath = "#/components/schemas/"
const componentName = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, "_")

/**
 * Rewrites a JSON Schema draft-07 (what effect's JSONSchema produces) into the OpenAPI 3.0 dialect: `null`
 * becomes `nullable`, `const` an enum, tuples arrays of any of their items, pattern properties additional
 * properties, local `$defs` references component references; keywords 3.0 lacks, and empty `required`
 * lists it forbids, are dropped.
 */
const toOpenApi30 = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(toOpenApi30)
  if (!isObject(schema)) return schema
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case "$schema":
      case "$id":
      case "$defs":
      case "$comment":
      case "propertyNames":
      case "additionalItems":
        break
      case "$ref":
        out.$ref = typeof value === "string" ? value.replace(/^#\/\$defs\//, componentPath) : value
        break
      case "required":
        // 3.0 requires at least one name; records come out of JSONSchema with an empty list.
        if (Array.isArray(value) && value.length > 0) out.required = value
        break
      case "const":
        out.enum = [value]
        break
      case "examples":
        if (Array.isArray(value) && value.length > 0) out.example = value[0] ?? null
        break
      case "patternProperties":
        if (isObject(value)) out.additionalProperties = toOpenApi30(Object.values(value)[0] ?? {})
        break
      case "properties":
        // A map of property names, not a schema: names such as `required` or `const` must stay as they are.
        if (isObject(value)) {
          out.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, toOpenApi30(property)]))
        }
        break
      case "items":
        out.items = Array.isArray(value) ? { anyOf: value.map(toOpenApi30) } : toOpenApi30(value)
        break
      default:
        out[key] = toOpenApi30(value)
    }
  }
  if (out.type === "null") return { nullable: true }
  const anyOf = out.anyOf
  if (Array.isArray(anyOf) && anyOf.some((member) => isObject(member) && member.nullable === true && Object.keys(member).length === 1)) {
    const rest = anyOf.filter((member) => !(isObject(member) && member.nullable === true && Object.keys(member).length === 1))
    delete out.anyOf
    const only = rest.length === 1 ? rest[0] : undefined
    // A $ref ignores its siblings in 3.0, so a nullable reference goes through allOf.
    if (isObject(only) && only.$ref === undefined) return { ...out, ...only, nullable: true }
    return { ...out, ...(isObject(only) ? { allOf: [only] } : { anyOf: rest }), nullable: true }
  }
  return out
}

/** The schema of a route's body or response; its named definitions go to the shared components. */
const schemaOf = (schema: Schema.Schema.Any, components: JsonObject): unknown => {
  const made = JSONSchema.make(schema)
  const definitions: unknown = made.$defs
  if (isObject(definitions)) {
    for (const [name, definition] of Object.entries(definitions)) {
      components[componentName(name)] ??= toOpenApi30(definition)
    }
  }
  return toOpenApi30(made)
}

/** `/api/:project/notes/:path:` → `/api/{project}/notes/{path}` and its parameter names. */
const openApiPath = (routePath: string) => {
  const parameters: Array<{ readonly name: string; readonly rest: boolean }> = []
  const template = routePath.replace(/:([A-Za-z]+)(:?)/g, (_, name: string, rest: string) => {
    parameters.push({ name, rest: rest === ":" })
    return `{${name}}`
  })
  return { template, parameters }
}

/** Every error of the legacy API answers `{"error": message}`. */
const errorSchema = {
  type: "object",
  required: ["error"],
  properties: { error: { type: "string" } }
}

const operation = (doc: RouteDoc, pathParameters: ReturnType<typeof openApiPath>["parameters"], components: JsonObject): JsonObject => {
  const parameters: Array<unknown> = [
    ...pathParameters.map((parameter) => ({
      name: parameter.name,
      in: "path",
      required: true,
      ...(parameter.rest ? { description: "the rest of the path, slashes included" } : {}),
      schema: { type: "string" }
    })),
    ...Object.entries(doc.query ?? {}).map(([name, description]) => ({
      name,
      in: "query",
      required: false,
      description,
      schema: { type: "string" }
    }))
  ]
  const status = String(doc.responseStatus ?? 200)
  const contentType = doc.responseContentType ?? "application/json"
  const content =
    doc.response !== undefined
      ? { content: { [contentType]: { schema: schemaOf(doc.response, components) } } }
      : doc.responseContentType !== undefined
        ? { content: { [contentType]: { schema: { type: "string" } } } }
        : {}
  return {
    tags: [doc.tag],
    summary: doc.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.requestBody !== undefined
      ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(doc.requestBody, components) } } } }
      : {}),
    responses: {
      [status]: { description: doc.summary, ...content },
      default: { description: "an error", content: { "application/json": { schema: { $ref: `${componentPath}ErrorBody` } } } }
    }
  }
}

/** The OpenAPI 3.0 description of every documented route of a table, in the table's order. */
export const openApiDocument = (routes: ReadonlyArray<DocumentedRoute>, info: { readonly title: string; readonly version: string }) => {
  const components: JsonObject = { ErrorBody: errorSchema }
  const paths: Record<string, JsonObject> = {}
  const tags = new Set<string>()
  for (const route of routes) {
    if (route.doc === undefined) continue
    const { template, parameters } = openApiPath(route.path)
    const item = (paths[template] ??= {})
    item[route.method.toLowerCase()] = operation(route.doc, parameters, components)
    tags.add(route.doc.tag)
  }
  return {
    openapi: "3.0.1",
    info,
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: { schemas: components }
  }
}
