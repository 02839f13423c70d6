import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { request, testServerLayer } from "../helpers/server.ts"
import { basic } from "../helpers/users.ts"
import { api, firstError, items, jsonApi, resource, seed } from "./helpers.ts"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`review API JSON:API conventions on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("answers anonymous and wrongly authenticated callers 403 with a JSON:API error document", () =>
        Effect.gen(function* () {
          const anonymous = yield* api(undefined, "GET", "/api/v1/tasks/")
          expect(anonymous.status).toBe(403)
          expect(anonymous.contentType).toBe(jsonApi)
          expect(anonymous.body).toEqual({
            errors: [
              {
                detail: "Authentication credentials were not provided.",
                status: "403",
                source: { pointer: "/data" },
                code: "not_authenticated"
              }
            ]
          })
          const wrong = yield* request("/api/v1/users/me/", { headers: { authorization: basic("nobody", "nothing") } })
          expect(wrong.status).toBe(403)
          expect((yield* api(undefined, "GET", "/api/v1/users/me")).status).toBe(403)
          const redirect = yield* request("/api/", { redirect: "manual" })
          expect(redirect.status).toBe(302)
          expect(redirect.headers.get("location")).toBe("/api/v1/")
        })
      )

      it.effect(
        "serves resources with string ids, camelCase attributes, PascalCase types and self links, with or without the trailing slash",
        () =>
          Effect.gen(function* () {
            const fixture = yield* seed("conv1")
            const withSlash = yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.task}/`)
            const withoutSlash = yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.task}`)
            expect(withSlash.status).toBe(200)
            expect(withSlash.contentType).toBe(jsonApi)
            expect(withoutSlash.body).toEqual(withSlash.body)
            const task = resource(withSlash)
            expect(task.type).toBe("Task")
            expect(task.id).toBe(String(fixture.task))
            expect(task.links?.self).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/v1/tasks/${fixture.task}/$`))
            expect(task.attributes).toMatchObject({ name: "Addresses conv1", taskRecordsCount: 3, templateType: "TEXT" })
            // Default includes of a task: its project and template setting, ordered by type then id.
            const included = withSlash.body.included as ReadonlyArray<{ type: string; id: string }>
            expect(included.map((item) => item.type)).toEqual(["Project", "TaskTemplateSettingForText"])
          })
      )

      it.effect("validates include paths, sort keys, filters and query parameters with 400s", () =>
        Effect.gen(function* () {
          const { alice } = yield* seed("conv2")
          const cases: ReadonlyArray<readonly [string, string]> = [
            ["/api/v1/tasks/?include=nothing", "This endpoint does not support the include parameter for path nothing"],
            ["/api/v1/users/?include=creator", "This endpoint does not support the include parameter"],
            ["/api/v1/tasks/?sort=color", "invalid sort parameter: color"],
            ["/api/v1/tasks/?sort=color,-size", "invalid sort parameters: color,-size"],
            ["/api/v1/tasks/?filter[color]=red", "invalid filter[color]"],
            ["/api/v1/tasks/?filter[name]=", "missing value for query parameter filter[name]"],
            ["/api/v1/tasks/?filter[x=1", "invalid query parameter: filter[x"],
            ["/api/v1/tasks/?limit=1", "invalid query parameter: limit"],
            ["/api/v1/tasks/?sort=name&sort=-name", "repeated query parameter not allowed: sort"],
            ["/api/v1/task-records/?filter[task]=999999", "Select a valid choice. That choice is not one of the available choices."]
          ]
          for (const [path, detail] of cases) {
            const answer = yield* api(alice, "GET", path)
            expect(answer.status, path).toBe(400)
            expect(firstError(answer).detail, path).toBe(detail)
            expect(firstError(answer).status).toBe("400")
          }
          expect(firstError(yield* api(alice, "GET", "/api/v1/task-records/?filter[task]=999999")).source?.pointer).toBe(
            "/data/attributes/task"
          )
          // Both spellings of include paths and filter names are accepted.
          expect((yield* api(alice, "GET", "/api/v1/tasks/?include=choice_group.choices")).status).toBe(200)
          expect((yield* api(alice, "GET", "/api/v1/choice-groups/?include=alternativeValues,choices")).status).toBe(200)
        })
      )

      it.effect("paginates with page[number] and page[size] (default 10, clamped to 100) and answers 404 Invalid page.", () =>
        Effect.gen(function* () {
          const { alice, admin } = yield* seed("conv3")
          const total = ((yield* api(admin, "GET", "/api/v1/task-records/")).body.meta as { pagination: { count: number } }).pagination
            .count
          const page = yield* api(admin, "GET", "/api/v1/task-records/?page[size]=2&page[number]=2&include=task")
          expect(page.status).toBe(200)
          expect(items(page)).toHaveLength(2)
          expect(page.body.meta).toEqual({ pagination: { page: 2, pages: Math.ceil(total / 2), count: total } })
          const links = page.body.links as Record<string, string | null>
          expect(links.prev).toMatch(/\/api\/v1\/task-records\/\?include=task&page%5Bnumber%5D=1&page%5Bsize%5D=2$/)
          expect(links.first).toMatch(/page%5Bnumber%5D=1&page%5Bsize%5D=2$/)
          expect(Object.keys(page.body)).toEqual(["links", "data", "included", "meta"])
          const clamped = yield* api(admin, "GET", "/api/v1/task-records/?page[size]=1000")
          expect(items(clamped).length).toBe(Math.min(total, 100))
          const fallback = yield* api(alice, "GET", "/api/v1/users/?page[size]=zero")
          const users = (fallback.body.meta as { pagination: { count: number } }).pagination.count
          expect(items(fallback)).toHaveLength(Math.min(users, 10))
          for (const number of ["99", "abc", "0"]) {
            const invalid = yield* api(alice, "GET", `/api/v1/task-records/?page[number]=${number}`)
            expect(invalid.status).toBe(404)
            expect(invalid.body).toEqual({
              errors: [{ detail: "Invalid page.", status: "404", source: { pointer: "/data" }, code: "not_found" }]
            })
          }
          const last = yield* api(admin, "GET", "/api/v1/task-records/?page[size]=2&page[number]=last")
          expect((last.body.meta as { pagination: { page: number } }).pagination.page).toBe(Math.ceil(total / 2))
          // Unpaginated endpoints ignore page parameters.
          const projects = yield* api(alice, "GET", "/api/v1/projects/?page[size]=1")
          expect(projects.body.meta).toBeUndefined()
          expect(items(projects).length).toBeGreaterThan(1)
        })
      )

      it.effect("keeps only the requested fields with sparse fieldsets in camelCase or snake_case", () =>
        Effect.gen(function* () {
          const { alice } = yield* seed("conv4")
          for (const spelling of ["originalValue,task", "original_value,task"]) {
            const answer = yield* api(alice, "GET", `/api/v1/task-records/?fields[TaskRecord]=${spelling}&include=task&fields[Task]=name`)
            const record = items(answer)[0]!
            expect(Object.keys(record.attributes ?? {})).toEqual(["originalValue"])
            expect(Object.keys(record.relationships ?? {})).toEqual(["task"])
            const task = (answer.body.included as ReadonlyArray<{ attributes: Record<string, unknown> }>)[0]!
            expect(Object.keys(task.attributes)).toEqual(["name"])
          }
        })
      )

      it.effect("reads request documents strictly: 415 for other media types, 409 for a wrong type or id, 400 without primary data", () =>
        Effect.gen(function* () {
          const { admin, project } = yield* seed("conv5")
          const body = { data: { type: "Project", attributes: { name: "x" } } }
          const plainJson = yield* api(admin, "POST", "/api/v1/projects/", body, "application/json")
          expect(plainJson.status).toBe(415)
          expect(firstError(plainJson)).toEqual({
            detail: 'Unsupported media type "application/json" in request.',
            status: "415",
            source: { pointer: "/data" },
            code: "unsupported_media_type"
          })
          expect((yield* api(admin, "POST", "/api/v1/projects/", body, `${jsonApi}; ext=bulk`)).status).toBe(201)
          const wrongType = yield* api(admin, "POST", "/api/v1/projects/", { data: { type: "Task", attributes: { name: "x" } } })
          expect(wrongType.status).toBe(409)
          expect(firstError(wrongType).detail).toBe(
            "The resource object's type (Task) is not the type that constitute the collection represented by the endpoint (Project)."
          )
          const wrongId = yield* api(admin, "PATCH", `/api/v1/projects/${project}/`, {
            data: { type: "Project", id: "12345", attributes: { name: "y" } }
          })
          expect(wrongId.status).toBe(409)
          const missingId = yield* api(admin, "PATCH", `/api/v1/projects/${project}/`, {
            data: { type: "Project", attributes: { name: "y" } }
          })
          expect(missingId.status).toBe(400)
          expect(firstError(missingId).detail).toBe("The resource identifier object must contain an 'id' member")
          const noData = yield* api(admin, "POST", "/api/v1/projects/", { meta: {} })
          expect(noData.status).toBe(400)
          expect(firstError(noData).detail).toBe("Received document does not contain primary data")
          const malformed = yield* api(admin, "POST", "/api/v1/projects/", "{not json")
          expect(malformed.status).toBe(400)
          expect(firstError(malformed).code).toBe("parse_error")
          const wrongRelation = yield* api(admin, "POST", "/api/v1/choices/", {
            data: {
              type: "Choice",
              attributes: { name: "x" },
              relationships: { choiceGroup: { data: { type: "Project", id: String(project) } } }
            }
          })
          expect(wrongRelation.status).toBe(409)
          expect(firstError(wrongRelation).detail).toBe("Incorrect relation type. Expected ChoiceGroup, received Project.")
          const unknownRelation = yield* api(admin, "POST", "/api/v1/choices/", {
            data: {
              type: "Choice",
              attributes: { name: "x" },
              relationships: { choiceGroup: { data: { type: "ChoiceGroup", id: "999999" } } }
            }
          })
          expect(unknownRelation.status).toBe(400)
          expect(firstError(unknownRelation)).toMatchObject({
            detail: 'Invalid pk "999999" - object does not exist.',
            source: { pointer: "/data/relationships/choiceGroup" }
          })
        })
      )

      it.effect("answers 405 in JSON:API for methods a path does not serve, and 404 without pointer for unknown ids", () =>
        Effect.gen(function* () {
          const { alice, admin } = yield* seed("conv6")
          const answer = yield* api(admin, "PUT", "/api/v1/projects/1/", { data: { type: "Project", id: "1" } })
          expect(answer.status).toBe(405)
          expect(firstError(answer)).toEqual({
            detail: 'Method "PUT" not allowed.',
            status: "405",
            source: { pointer: "/data" },
            code: "method_not_allowed"
          })
          const missing = yield* api(alice, "GET", "/api/v1/projects/999999/")
          expect(missing.status).toBe(404)
          expect(missing.body).toEqual({ errors: [{ detail: "No Project matches the given query.", status: "404", code: "not_found" }] })
          const user = yield* api(alice, "GET", "/api/v1/users/nobody/")
          expect(firstError(user)).toMatchObject({ detail: "Not found.", source: { pointer: "/data" } })
          for (const method of ["GET", "POST"] as const) {
            const unknown = yield* api(alice, method, "/api/v1/no-such-resource/1/")
            expect(unknown.status).toBe(404)
            expect(unknown.contentType).toContain("application/vnd.api+json")
            expect(unknown.body).toEqual({ errors: [{ detail: "Not found.", status: "404", code: "not_found" }] })
          }
        })
      )
    })
  })
}
