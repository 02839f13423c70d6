import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { api, create, firstError, items, resource, runSql, seed } from "./helpers.ts"

const review = (taskRecord: number, checker: number, round?: number) => ({
  data: {
    type: "TaskRecordReview",
    ...(round === undefined ? {} : { attributes: { round } }),
    relationships: {
      taskRecord: { data: { type: "TaskRecord", id: String(taskRecord) } },
      checker: { data: { type: "User", id: String(checker) } }
    }
  }
})

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`review API content management on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("refuses every write to non-staff users with 403 and to anonymous callers with 403", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("cm1")
          const writes: ReadonlyArray<readonly [string, string, unknown]> = [
            ["POST", "/api/v1/projects/", { data: { type: "Project", attributes: { name: "x" } } }],
            [
              "PATCH",
              `/api/v1/projects/${fixture.project}/`,
              { data: { type: "Project", id: String(fixture.project), attributes: { name: "x" } } }
            ],
            ["DELETE", `/api/v1/projects/${fixture.project}/`, undefined],
            ["POST", "/api/v1/choice-groups/", { data: { type: "ChoiceGroup", attributes: { name: "x" } } }],
            ["POST", "/api/v1/tasks/", { data: { type: "Task", attributes: { name: "x" } } }],
            ["DELETE", `/api/v1/task-records/${fixture.records[0]}/`, undefined],
            ["POST", "/api/v1/task-record-reviews/", review(fixture.records[0]!, fixture.alice.id)],
            ["POST", "/api/v1/tips/", { data: { type: "Tip", attributes: { name: "x" } } }]
          ]
          for (const [method, path, body] of writes) {
            const checker = yield* api(fixture.alice, method, path, body)
            expect(checker.status, `${method} ${path}`).toBe(403)
            expect(firstError(checker)).toEqual({
              detail: "You do not have permission to perform this action.",
              status: "403",
              source: { pointer: "/data" },
              code: "permission_denied"
            })
            expect((yield* api(undefined, method, path, body)).status).toBe(403)
          }
          expect(resource(yield* api(fixture.alice, "GET", `/api/v1/projects/${fixture.project}/`)).attributes.name).toBe("Project cm1")
        })
      )

      it.effect("creates, updates and deletes projects, choice groups, choices and alternative values with their defaults and limits", () =>
        Effect.gen(function* () {
          const { admin } = yield* seed("cm2")
          const created = yield* api(admin, "POST", "/api/v1/projects/", { data: { type: "Project", attributes: { name: "Leaks" } } })
          expect(created.status).toBe(201)
          expect(resource(created)).toMatchObject({
            type: "Project",
            attributes: { name: "Leaks" },
            relationships: { creator: { data: { type: "User", id: String(admin.id) } } }
          })
          const id = resource(created).id
          const patched = yield* api(admin, "PATCH", `/api/v1/projects/${id}/`, {
            data: { type: "Project", id, attributes: { name: "Leaks 2" } }
          })
          expect(patched.status).toBe(200)
          expect(resource(patched).attributes.name).toBe("Leaks 2")
          const tooLong = yield* api(admin, "POST", "/api/v1/projects/", {
            data: { type: "Project", attributes: { name: "x".repeat(101) } }
          })
          expect(tooLong.status).toBe(400)
          expect(firstError(tooLong)).toEqual({
            detail: "Ensure this field has no more than 100 characters.",
            status: "400",
            source: { pointer: "/data/attributes/name" },
            code: "max_length"
          })
          const missing = yield* api(admin, "POST", "/api/v1/choices/", {
            data: { type: "Choice", attributes: { requireAlternativeValue: "yes" } }
          })
          expect(missing.status).toBe(400)
          expect(missing.body.errors?.map((error) => (error.source as { pointer: string }).pointer)).toEqual([
            "/data/attributes/name",
            "/data/attributes/requireAlternativeValue",
            "/data/relationships/choiceGroup"
          ])
          const group = yield* create(admin, "choice-groups", "ChoiceGroup", { name: "Yes or no" })
          const choice = yield* api(admin, "POST", "/api/v1/choices/", {
            data: {
              type: "Choice",
              attributes: { name: "Maybe", value: "", requireAlternativeValue: true },
              relationships: { choiceGroup: { data: { type: "ChoiceGroup", id: String(group) } } }
            }
          })
          expect(resource(choice).attributes).toEqual({
            name: "Maybe",
            value: "Maybe",
            shortkeys: null,
            requireAlternativeValue: true,
            color: null
          })
          const value = yield* create(
            admin,
            "alternative-values",
            "AlternativeValue",
            { name: "Lyon", value: "LYS" },
            { choiceGroup: ["ChoiceGroup", group] }
          )
          expect(resource(yield* api(admin, "GET", `/api/v1/alternative-values/${value}/`)).attributes).toEqual({
            name: "Lyon",
            value: "LYS"
          })
          const emptied = yield* api(admin, "PATCH", `/api/v1/alternative-values/${value}/`, {
            data: { type: "AlternativeValue", id: String(value), attributes: { value: "" } }
          })
          expect(resource(emptied).attributes).toEqual({ name: "Lyon", value: "Lyon" })
          expect((yield* api(admin, "DELETE", `/api/v1/alternative-values/${value}/`)).status).toBe(204)
          expect((yield* api(admin, "GET", `/api/v1/alternative-values/${value}/`)).status).toBe(404)
          expect((yield* api(admin, "DELETE", `/api/v1/choice-groups/${group}/`)).status).toBe(204)
          expect((yield* api(admin, "GET", `/api/v1/choices/${resource(choice).id}/`)).status).toBe(404)
          expect((yield* api(admin, "DELETE", `/api/v1/projects/${id}/`)).status).toBe(204)
          expect((yield* api(admin, "DELETE", `/api/v1/projects/${id}/`)).status).toBe(404)
        })
      )

      it.effect(
        "creates tasks with their template setting, converts it with the template type, and freezes the choice group once reviewed",
        () =>
          Effect.gen(function* () {
            const fixture = yield* seed("cm3")
            const { admin } = fixture
            const created = yield* api(admin, "POST", "/api/v1/tasks/", {
              data: {
                type: "Task",
                attributes: { name: "Pictures", templateType: "MEDIA", rounds: 2, priority: 2, color: "#FE6565" },
                relationships: {
                  project: { data: { type: "Project", id: String(fixture.project) } },
                  checkers: { data: [{ type: "User", id: String(fixture.alice.id) }] }
                }
              }
            })
            expect(created.status).toBe(201)
            const task = resource(created)
            expect(task.attributes).toMatchObject({
              name: "Pictures",
              templateType: "MEDIA",
              rounds: 2,
              priority: 2,
              status: "OPEN",
              description: "",
              color: "#FE6565",
              allowMultipleChecks: false
            })
            // Checkers do not see the settings only the staff write.
            expect(Object.keys(resource(yield* api(fixture.alice, "GET", `/api/v1/tasks/${task.id}/`)).attributes)).not.toContain("color")
            const setting = (
              created.body.included as ReadonlyArray<{ type: string; id: string; attributes: Record<string, unknown> }>
            ).find((item) => item.type.startsWith("TaskTemplateSetting"))
            expect(setting).toEqual({
              type: "TaskTemplateSettingForMedia",
              id: expect.any(String),
              attributes: { maxWidth: null, maxHeight: null, displayOriginalValue: true }
            })
            const converted = yield* api(admin, "PATCH", `/api/v1/tasks/${task.id}/`, {
              data: { type: "Task", id: task.id, attributes: { templateType: "IFRAME", status: "CLOSED" } }
            })
            expect(resource(converted).relationships.templateSetting.data).toEqual({
              type: "TaskTemplateSettingForIframe",
              id: setting?.id
            })
            expect(resource(converted).attributes.status).toBe("CLOSED")
            const settingPath = `/api/v1/task-template-settings/${setting?.id}/`
            const edited = yield* api(admin, "PATCH", settingPath, {
              data: { type: "TaskTemplateSettingForIframe", id: setting?.id, attributes: { maxWidth: 640, ratio: 1.5 } }
            })
            expect(resource(edited).attributes).toEqual({ maxWidth: 640, maxHeight: null, displayOriginalValue: true, ratio: 1.5 })
            expect(
              (yield* api(admin, "PATCH", settingPath, { data: { type: "TaskTemplateSettingForMedia", id: setting?.id } })).status
            ).toBe(409)
            expect(
              (yield* api(fixture.alice, "PATCH", settingPath, { data: { type: "TaskTemplateSettingForIframe", id: setting?.id } })).status
            ).toBe(403)
            const badStatus = yield* api(admin, "PATCH", `/api/v1/tasks/${task.id}/`, {
              data: { type: "Task", id: task.id, attributes: { status: "DONE", rounds: 0 } }
            })
            expect(badStatus.body.errors?.map((error) => error.code)).toEqual(["min_value", "invalid_choice"])
            const noProject = yield* api(admin, "POST", "/api/v1/tasks/", { data: { type: "Task", attributes: { name: "x" } } })
            expect(firstError(noProject)).toMatchObject({
              detail: "This field is required.",
              source: { pointer: "/data/relationships/project" }
            })
            // The seeded task has reviews after an assignment: its choice group can no longer change.
            const otherGroup = yield* create(admin, "choice-groups", "ChoiceGroup", { name: "Other" })
            const change = {
              data: {
                type: "Task",
                id: String(fixture.task),
                relationships: { choiceGroup: { data: { type: "ChoiceGroup", id: String(otherGroup) } } }
              }
            }
            expect(
              (yield* api(admin, "PATCH", `/api/v1/tasks/${fixture.siblingTask}/`, {
                ...change,
                data: { ...change.data, id: String(fixture.siblingTask) }
              })).status
            ).toBe(200)
            yield* create(
              admin,
              "task-record-reviews",
              "TaskRecordReview",
              {},
              { taskRecord: ["TaskRecord", fixture.records[0]!], checker: ["User", fixture.alice.id] }
            )
            const frozen = yield* api(admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, change)
            expect(frozen.status).toBe(400)
            expect(firstError(frozen)).toMatchObject({
              detail: "You cannot change the choice group.",
              source: { pointer: "/data/relationships/choiceGroup" }
            })
            const inUse = yield* api(admin, "DELETE", `/api/v1/choice-groups/${fixture.group}/`)
            expect(inUse.status).toBe(400)
            const checkers = yield* api(admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, {
              data: {
                type: "Task",
                id: String(fixture.task),
                relationships: { checkers: { data: [{ type: "User", id: String(fixture.carol.id) }] } }
              }
            })
            expect(resource(checkers).relationships.checkers).toEqual({
              meta: { count: 1 },
              data: [{ type: "User", id: String(fixture.carol.id) }]
            })
            expect((yield* api(admin, "DELETE", `/api/v1/tasks/${task.id}/`)).status).toBe(204)
            expect((yield* api(admin, "GET", `/api/v1/task-template-settings/${setting?.id}/`)).status).toBe(404)
          })
      )

      it.effect("assigns records to checkers with the round attribution rules", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("cm4")
          const { admin } = fixture
          const [record] = fixture.records
          const first = yield* api(admin, "POST", "/api/v1/task-record-reviews/", review(record!, fixture.alice.id))
          expect(first.status).toBe(201)
          expect(resource(first)).toMatchObject({
            type: "TaskRecordReview",
            attributes: { status: "PENDING", choiceId: null, taskId: String(fixture.task), note: null }
          })
          const again = yield* api(admin, "POST", "/api/v1/task-record-reviews/", review(record!, fixture.alice.id))
          expect(again.status).toBe(400)
          expect(firstError(again).detail).toBe(`Task record #${record} was already attributed to alicecm4 before`)
          const notChecker = yield* api(admin, "POST", "/api/v1/task-record-reviews/", review(record!, fixture.carol.id))
          expect(firstError(notChecker).detail).toBe(`carolcm4 is not a checker for the task Addresses cm4`)
          const second = resource(yield* api(admin, "POST", "/api/v1/task-record-reviews/", review(record!, fixture.bob.id)))
          const [rounds] = yield* runSql(
            (sql) => sql<{ round: number }>`SELECT round FROM review_task_record_reviews WHERE id = ${Number(second.id)}`
          )
          expect(rounds?.round).toBe(2)
          const history = second.relationships.history as { meta: { count: number } }
          expect(history.meta.count).toBe(2)
          // With multiple checks allowed only the (record, checker, round) triple must be new; the task's rounds cap the reviews.
          yield* api(admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, {
            data: { type: "Task", id: String(fixture.task), attributes: { allowMultipleChecks: true } }
          })
          expect((yield* api(admin, "POST", "/api/v1/task-record-reviews/", review(record!, fixture.alice.id, 1))).status).toBe(400)
          expect((yield* api(admin, "POST", "/api/v1/task-record-reviews/", review(record!, fixture.alice.id))).status).toBe(201)
          const full = yield* api(admin, "POST", "/api/v1/task-record-reviews/", review(record!, fixture.alice.id))
          expect(firstError(full).detail).toBe(`Task record #${record} cannot get more than 3 reviews`)
          const recordAfter = resource(yield* api(admin, "GET", `/api/v1/task-records/${record}/`))
          expect(recordAfter.attributes).toMatchObject({ status: "ASSIGNED", rounds: 3 })
          // Deleting reviews recomputes the record.
          const reviews = items(
            yield* api(admin, "GET", `/api/v1/task-record-reviews/?filter[task_record__task]=${fixture.task}&page[size]=100`)
          )
          for (const item of reviews) expect((yield* api(admin, "DELETE", `/api/v1/task-record-reviews/${item.id}/`)).status).toBe(204)
          expect(resource(yield* api(admin, "GET", `/api/v1/task-records/${record}/`)).attributes).toMatchObject({
            status: "UNASSIGNED",
            rounds: 0
          })
        })
      )

      it.effect("attributes new records to the task's checkers automatically when the task asks for it", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("cm5")
          const { admin } = fixture
          yield* api(admin, "PATCH", `/api/v1/tasks/${fixture.task}/`, {
            data: { type: "Task", id: String(fixture.task), attributes: { automaticRoundAttributions: true } }
          })
          const record = yield* create(
            admin,
            "task-records",
            "TaskRecord",
            { uid: "auto", originalValue: "x", priority: 3 },
            { task: ["Task", fixture.task] }
          )
          const rows = yield* runSql(
            (sql) => sql<{ checker: number; round: number }>`
            SELECT checker_id AS checker, round FROM review_task_record_reviews WHERE task_record_id = ${record} ORDER BY round`
          )
          expect(rows).toEqual([
            { checker: fixture.alice.id, round: 1 },
            { checker: fixture.bob.id, round: 2 }
          ])
          expect(resource(yield* api(fixture.alice, "GET", `/api/v1/task-records/${record}/`)).attributes.status).toBe("ASSIGNED")
          const patched = yield* api(admin, "PATCH", `/api/v1/task-records/${record}/`, {
            data: { type: "TaskRecord", id: String(record), attributes: { link: "https://example.org/own", metadata: [1, 2] } }
          })
          expect(resource(patched).attributes).toMatchObject({
            link: "https://example.org/own",
            embeddableLink: "https://example.org/own",
            metadata: [1, 2]
          })
          expect((yield* api(admin, "DELETE", `/api/v1/task-records/${record}/`)).status).toBe(204)
        })
      )
    })
  })
}
