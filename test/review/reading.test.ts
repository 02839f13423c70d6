import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { api, create, firstError, items, resource, runSql, seed } from "./helpers.ts"

const ids = (answer: Parameters<typeof items>[0]) => items(answer).map((item) => Number(item.id))

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`review API reading on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("scopes tasks to the projects a checker works in, while staff see every task", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("read1")
          const alice = ids(yield* api(fixture.alice, "GET", "/api/v1/tasks/"))
          expect(alice).toEqual([fixture.siblingTask, fixture.task])
          expect(ids(yield* api(fixture.carol, "GET", "/api/v1/tasks/"))).toEqual([fixture.otherTask])
          const admin = ids(yield* api(fixture.admin, "GET", "/api/v1/tasks/"))
          expect(admin).toEqual(expect.arrayContaining([fixture.task, fixture.siblingTask, fixture.otherTask]))
          const hidden = yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.otherTask}/`)
          expect(hidden.status).toBe(404)
          expect(firstError(hidden).detail).toBe("No Task matches the given query.")
          expect(ids(yield* api(fixture.alice, "GET", `/api/v1/tasks/?filter[checkers]=${fixture.bob.id}`))).toEqual([
            fixture.siblingTask,
            fixture.task
          ])
          expect(ids(yield* api(fixture.alice, "GET", `/api/v1/tasks/?filter[search]=sibling`))).toEqual([fixture.siblingTask])
          expect(ids(yield* api(fixture.alice, "GET", `/api/v1/tasks/?sort=name`))).toEqual([fixture.task, fixture.siblingTask])
          const withCheckers = yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.task}/?include=project,checkers,templateSetting`)
          expect(resource(withCheckers).relationships.checkers).toEqual({
            meta: { count: 2 },
            data: [
              { type: "User", id: String(fixture.alice.id) },
              { type: "User", id: String(fixture.bob.id) }
            ]
          })
          const included = withCheckers.body.included as ReadonlyArray<{ type: string; id: string }>
          expect(included.map((item) => `${item.type}:${item.id}`)).toEqual(
            [
              `Project:${fixture.project}`,
              expect.stringMatching(/^TaskTemplateSettingForText:\d+$/),
              `User:${fixture.alice.id}`,
              `User:${fixture.bob.id}`
            ].sort((a, b) => (typeof a === "string" && typeof b === "string" ? (a < b ? -1 : 1) : 0))
          )
        })
      )

      it.effect("computes task progress figures from the reviews, overall, per round and for the requester", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("read2")
          const [first, second] = fixture.records
          const assign = (record: number, checker: number) =>
            create(
              fixture.admin,
              "task-record-reviews",
              "TaskRecordReview",
              {},
              { taskRecord: ["TaskRecord", record], checker: ["User", checker] }
            )
          const done = yield* assign(first!, fixture.alice.id)
          yield* assign(first!, fixture.bob.id)
          yield* assign(second!, fixture.alice.id)
          yield* runSql(
            (sql) => sql`UPDATE review_task_record_reviews SET status = 'DONE', choice_id = ${fixture.choices[0]} WHERE id = ${done}`
          )
          const task = resource(yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.task}/`))
          expect(task.attributes).toMatchObject({
            taskRecordsCount: 3,
            taskRecordsDoneCount: 0,
            progress: (1 / 3) * 100,
            progressByRound: { "1": 50, "2": 0, "3": 0 },
            userTaskRecordsCount: 2,
            userTaskRecordsDoneCount: 1,
            userProgress: 50,
            userProgressByRound: { "1": 50, "2": 0, "3": 0 },
            colors: ["#25605e", "#31807d", "#3da09c"]
          })
          const sibling = resource(yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.siblingTask}/`))
          expect(sibling.attributes).toMatchObject({ progress: 100, userProgress: 100, taskRecordsCount: 0 })
        })
      )

      it.effect("lists task records to their task's checkers with their links, and shows a record's detail to its reviewers only", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("read3")
          // Records are scoped to the tasks one checks (the reference lists them to anyone): Carol checks another task.
          expect(items(yield* api(fixture.carol, "GET", `/api/v1/task-records/?filter[task]=${fixture.task}`))).toEqual([])
          const listed = yield* api(fixture.alice, "GET", `/api/v1/task-records/?filter[task]=${fixture.task}&sort=uid`)
          expect(items(listed).map((record) => record.attributes?.uid)).toEqual(["a", "b", "c"])
          expect(items(listed)[0]!.attributes).toMatchObject({
            originalValue: "original a",
            predictedValue: "predicted a",
            link: "https://example.org/a?q=New%20York",
            embeddableLink: "https://example.org/a?q=New%20York",
            metadata: { city: "New York" },
            status: "UNASSIGNED",
            rounds: 0,
            locked: false,
            bookmarked: false
          })
          const included = listed.body.included as ReadonlyArray<{ type: string }>
          expect(included.map((item) => item.type)).toEqual(["Task"])
          const record = fixture.records[0]!
          const notReviewer = yield* api(fixture.alice, "GET", `/api/v1/task-records/${record}/`)
          expect(notReviewer.status).toBe(403)
          expect(firstError(notReviewer).detail).toBe("You do not have permission to update this resource.")
          yield* create(
            fixture.admin,
            "task-record-reviews",
            "TaskRecordReview",
            {},
            { taskRecord: ["TaskRecord", record], checker: ["User", fixture.alice.id] }
          )
          const reviewer = yield* api(fixture.alice, "GET", `/api/v1/task-records/${record}/`)
          expect(reviewer.status).toBe(200)
          expect(resource(reviewer).attributes.status).toBe("ASSIGNED")
          yield* runSql((sql) => sql`UPDATE review_tasks SET status = 'CLOSED' WHERE id = ${fixture.task}`)
          const closed = yield* api(fixture.alice, "GET", `/api/v1/task-records/${record}/`)
          expect(closed.status).toBe(403)
          expect(firstError(closed).detail).toBe("You do not have permission to update a resource from a locked or closed task")
          expect((yield* api(fixture.admin, "GET", `/api/v1/task-records/${record}/`)).status).toBe(200)
          const reviewed = yield* api(fixture.alice, "GET", `/api/v1/task-records/?filter[task]=${fixture.task}&filter[reviewed]=0`)
          expect(ids(reviewed)).toEqual([record])
        })
      )

      it.effect("reads users by id, username and as me, with staff flags and a filter on them", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("read4")
          const me = resource(yield* api(fixture.alice, "GET", "/api/v1/users/me/"))
          expect(me).toMatchObject({ type: "User", id: String(fixture.alice.id), attributes: { username: "aliceread4", isStaff: false } })
          expect(typeof me.attributes.csrfToken).toBe("string")
          expect(me.attributes.emailMd5).toMatch(/^[0-9a-f]{32}$/)
          const byName = resource(yield* api(fixture.alice, "GET", "/api/v1/users/bobread4/"))
          expect(byName.id).toBe(String(fixture.bob.id))
          expect(byName.attributes.csrfToken).toBeNull()
          expect(resource(yield* api(fixture.alice, "GET", `/api/v1/users/${fixture.bob.id}/`)).attributes.username).toBe("bobread4")
          const staff = items(yield* api(fixture.alice, "GET", "/api/v1/users/?filter[is_staff]=1&filter[username__icontains]=READ4"))
          expect(staff.map((user) => user.attributes?.username)).toEqual(["adminread4"])
          expect(
            items(yield* api(fixture.alice, "GET", "/api/v1/users/?filter[username__in]=bobread4,carolread4&sort=username")).map(
              (user) => user.attributes?.username
            )
          ).toEqual(["bobread4", "carolread4"])
        })
      )

      it.effect("reads projects, a project's tasks, choice groups with choices and alternative values, and template settings", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("read5")
          const project = resource(yield* api(fixture.carol, "GET", `/api/v1/projects/${fixture.project}/?include=creator`))
          expect(project).toMatchObject({
            type: "Project",
            attributes: { name: "Project read5" },
            relationships: { creator: { data: { type: "User", id: String(fixture.admin.id) } } }
          })
          const tasks = yield* api(fixture.carol, "GET", `/api/v1/projects/${fixture.project}/tasks/`)
          expect(items(tasks).map((task) => [task.type, Number(task.id)])).toEqual([
            ["Task", fixture.siblingTask],
            ["Task", fixture.task]
          ])
          yield* create(
            fixture.admin,
            "alternative-values",
            "AlternativeValue",
            { name: "Paris" },
            { choiceGroup: ["ChoiceGroup", fixture.group] }
          )
          const group = yield* api(fixture.alice, "GET", `/api/v1/choice-groups/${fixture.group}/?include=alternative_values,choices`)
          const included = group.body.included as ReadonlyArray<{ type: string; attributes: Record<string, unknown> }>
          expect(included.map((item) => item.type)).toEqual(["AlternativeValue", "Choice", "Choice"])
          expect(included[0]!.attributes).toEqual({ name: "Paris", value: "Paris" })
          const byName = (name: string) => included.find((item) => item.type === "Choice" && item.attributes.name === name)?.attributes
          expect(byName("Correct")).toEqual({
            name: "Correct",
            value: "Correct",
            shortkeys: "c",
            requireAlternativeValue: false,
            color: "#73B782"
          })
          expect(byName("Incorrect")?.value).toBe("wrong")
          const choices = yield* api(fixture.alice, "GET", `/api/v1/choices/?filter[choice_group]=${fixture.group}`)
          expect(ids(choices)).toEqual([...fixture.choices])
          const settingId = (
            resource(yield* api(fixture.alice, "GET", `/api/v1/tasks/${fixture.task}/`)).relationships.templateSetting.data as {
              id: string
            }
          ).id
          const setting = yield* api(fixture.alice, "GET", `/api/v1/task-template-settings/${settingId}/`)
          expect(resource(setting)).toEqual({ type: "TaskTemplateSettingForText", id: settingId })
        })
      )

      it.effect("scopes tips to the tasks one checks plus tips without a task", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("read6")
          const onTask = yield* create(
            fixture.admin,
            "tips",
            "Tip",
            { name: "On task", description: "look at @aliceread6" },
            { task: ["Task", fixture.task] }
          )
          const onOther = yield* create(
            fixture.admin,
            "tips",
            "Tip",
            { name: "On other", description: "" },
            { task: ["Task", fixture.otherTask] }
          )
          const general = yield* create(fixture.admin, "tips", "Tip", { name: "General", description: "" })
          const seen = ids(yield* api(fixture.alice, "GET", "/api/v1/tips/?filter[search]=on,task"))
          expect(seen).toEqual([onTask])
          const all = ids(yield* api(fixture.alice, "GET", `/api/v1/tips/?filter[id__in]=${onTask},${onOther},${general}`))
          expect(all).toEqual([general, onTask])
          const tip = yield* api(fixture.alice, "GET", `/api/v1/tips/${onTask}/?include=project,task`)
          // The project comes from the task when the tip names none.
          expect(resource(tip).relationships.project).toEqual({ data: { type: "Project", id: String(fixture.project) } })
          expect((yield* api(fixture.alice, "GET", `/api/v1/tips/${onOther}/`)).status).toBe(404)
        })
      )

      it.effect("serves settings to anyone (public ones only without credentials) keyed by their key, and the API root", () =>
        Effect.gen(function* () {
          const fixture = yield* seed("read7")
          yield* runSql(
            (sql) => sql`INSERT INTO review_settings (key, value, public) VALUES ('orgName', 'Newsroom', true) ON CONFLICT (key) DO NOTHING`
          )
          const anonymous = items(yield* api(undefined, "GET", "/api/v1/settings/"))
          expect(anonymous.map((setting) => setting.id)).toEqual(["loginUrl", "orgName"])
          expect(anonymous[1]).toEqual({ type: "Setting", id: "orgName", attributes: { key: "orgName", value: "Newsroom", public: true } })
          const signedIn = items(yield* api(fixture.alice, "GET", "/api/v1/settings/"))
          expect(signedIn.map((setting) => setting.id)).toContain("appName")
          expect((yield* api(undefined, "GET", "/api/v1/settings/appName/")).status).toBe(404)
          expect(resource(yield* api(fixture.alice, "GET", "/api/v1/settings/appName/")).attributes.value).toBe("Prophecies")
          const root = yield* api(fixture.alice, "GET", "/api/v1/")
          expect(root.body.data).toBeNull()
          expect((root.body.links as Record<string, string>)["task-records"]).toMatch(/\/api\/v1\/task-records\/$/)
        })
      )
    })
  })
}
