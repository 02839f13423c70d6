import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import SwaggerParser from "@apidevtools/swagger-parser"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { openApiDocument } from "../../src/http/OpenApi.ts"
import { allRoutes } from "../../src/http/routes.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"

/**
 * Validates with a real OpenAPI validator (the OpenAPI 3.0 specification's schema, references resolved). The
 * document goes through a file because the validator reads its input itself.
 */
const validateValue = (document: unknown) =>
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-openapi-"))),
    (dir) => {
      const file = path.join(dir, "openapi.json")
      fs.writeFileSync(file, JSON.stringify(document))
      return Effect.promise(() => SwaggerParser.validate(file))
    },
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

const Operation = Schema.Struct({
  tags: Schema.Array(Schema.String),
  summary: Schema.String,
  parameters: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, in: Schema.String, required: Schema.Boolean }))),
  responses: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

const Document = Schema.Struct({
  openapi: Schema.String,
  info: Schema.Struct({ title: Schema.String, version: Schema.String }),
  paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Operation }) }),
  components: Schema.Struct({ schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})

const templateOf = (routePath: string) => routePath.replace(/:([A-Za-z]+):?/g, "{$1}")

describe("openApiDocument", () => {
  it.effect("describes every documented route of any table, with shared schemas as components", () =>
    Effect.gen(function* () {
      // Property names that are also JSON Schema keywords must survive the conversion.
      class Item extends Schema.Class<Item>("Item")({
        id: Schema.String,
        note: Schema.NullOr(Schema.String),
        required: Schema.Literal("yes")
      }) {}
      const table = [
        { method: "GET" as const, path: "/api/:project/items/:id", doc: { summary: "One item", tag: "items", response: Item } },
        {
          method: "PUT" as const,
          path: "/api/:project/items/:path:",
          doc: { summary: "Saves items", tag: "items", requestBody: Schema.Array(Item), response: Schema.NullOr(Item), responseStatus: 201 }
        },
        { method: "DELETE" as const, path: "/api/undocumented" }
      ]
      const generated = openApiDocument(table, { title: "t", version: "1" })
      const document = Schema.decodeUnknownSync(Document)(generated)
      expect(Object.keys(document.paths)).toEqual(["/api/{project}/items/{id}", "/api/{project}/items/{path}"])
      expect(
        document.paths["/api/{project}/items/{path}"]?.put?.parameters?.map((parameter) => [
          parameter.name,
          parameter.in,
          parameter.required
        ])
      ).toEqual([
        ["project", "path", true],
        ["path", "path", true]
      ])
      const created = document.paths["/api/{project}/items/{path}"]?.put?.responses["201"]
      expect(created).toEqual({
        description: "Saves items",
        content: { "application/json": { schema: { allOf: [{ $ref: "#/components/schemas/Item" }], nullable: true } } }
      })
      expect(document.components.schemas.Item).toEqual({
        type: "object",
        required: ["id", "note", "required"],
        properties: { id: { type: "string" }, note: { type: "string", nullable: true }, required: { type: "string", enum: ["yes"] } },
        additionalProperties: false
      })
      yield* validateValue(generated)
    })
  )
})

// `layer` rather than `it.layer`: @effect/vitest's `it.layer` is rebound by each call, so a later suite would
// also rebuild (and nest under) the servers of the suites before it.
for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`GET /api/openapi on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("is a valid OpenAPI 3.0 document served as text/json", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/openapi")
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("text/json")
          const body = yield* bodyJson(response)
          const document = Schema.decodeUnknownSync(Document)(body)
          expect(document.openapi).toMatch(/^3\.0\.\d+$/)
          expect(document.info.title).not.toBe("")
          const validated = yield* validateValue(body)
          expect(validated.paths?.["/api/status"]?.get).toBeDefined()
        })
      )

      it.effect("has an operation for every documented route of the table, with its path parameters", () =>
        Effect.gen(function* () {
          const document = Schema.decodeUnknownSync(Document)(yield* bodyJson(yield* request("/api/openapi")))
          const documented = allRoutes.filter((route) => route.doc !== undefined)
          expect(documented.length).toBeGreaterThan(5)
          for (const route of documented) {
            const template = templateOf(route.path)
            const operation = document.paths[template]?.[route.method.toLowerCase()]
            expect(operation, `${route.method} ${route.path}`).toBeDefined()
            expect(operation?.summary).toBe(route.doc?.summary)
            const pathNames = [...template.matchAll(/\{([A-Za-z]+)\}/g)].map((match) => match[1])
            expect(operation?.parameters?.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name) ?? []).toEqual(
              pathNames
            )
          }
        })
      )

      it.effect("describes the status, root, languages and tree routes", () =>
        Effect.gen(function* () {
          const document = Schema.decodeUnknownSync(Document)(yield* bodyJson(yield* request("/api/openapi")))
          for (const template of ["/api/status", "/", "/api/settings/ocr/languages", "/api/settings/text/languages", "/api/openapi"]) {
            expect(document.paths[template]?.get, template).toBeDefined()
          }
          const tree = document.paths["/api/tree/{dirPath}"]?.get
          expect(tree?.parameters).toEqual([
            expect.objectContaining({ name: "dirPath", in: "path", required: true }),
            expect.objectContaining({ name: "depth", in: "query", required: false })
          ])
          expect(document.components.schemas.TreeEntry).toBeDefined()
        })
      )
    })
  })
}
