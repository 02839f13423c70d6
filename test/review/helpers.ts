import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { bodyJson, request, TestServer } from "../helpers/server.ts"
import { addUser, sessionCookieOf } from "../helpers/users.ts"

export const jsonApi = "application/vnd.api+json"

/** A signed-in caller of the review API: its session cookie and users.id. */
export interface Caller {
  readonly login: string
  readonly id: number
  readonly cookie: string
}

export const runSql = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), server.context)).pipe(Effect.orDie)

/** Creates a user, signs in once and keeps the session cookie (password checks are slow on purpose). */
export const signIn = (login: string, options: { readonly admin?: boolean } = {}) =>
  Effect.gen(function* () {
    yield* addUser(login, "pw", options)
    const cookie = yield* sessionCookieOf(login, "pw")
    const body = (yield* bodyJson(yield* request("/api/v1/users/me/", { headers: { cookie } }))) as { data: { id: string } }
    return { login, id: Number(body.data.id), cookie } satisfies Caller
  })

export interface Answer {
  readonly status: number
  readonly contentType: string | null
  // The JSON:API documents tests read are loosely shaped; they are checked field by field.
  readonly body: Record<string, unknown> & { data?: unknown; errors?: ReadonlyArray<Record<string, unknown>> }
}

/** A request to the review API as `caller` (anonymous when undefined); bodies are sent as JSON:API unless told. */
export const api = (caller: Caller | undefined, method: string, path: string, body?: unknown, contentType: string = jsonApi) =>
  Effect.gen(function* () {
    const headers: Record<string, string> = {}
    if (caller !== undefined) headers.cookie = caller.cookie
    if (body !== undefined) headers["content-type"] = contentType
    const response = yield* request(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
    })
    const text = yield* Effect.promise(() => response.text())
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: text === "" ? {} : (JSON.parse(text) as Answer["body"])
    } satisfies Answer
  })

/** The data of a collection document as a list of resource objects. */
export const items = (answer: Answer) =>
  answer.body.data as ReadonlyArray<{
    type: string
    id: string
    attributes?: Record<string, unknown>
    relationships?: Record<string, { data: unknown; meta?: unknown }>
  }>

export const resource = (answer: Answer) =>
  answer.body.data as {
    type: string
    id: string
    attributes: Record<string, unknown>
    relationships: Record<string, { data: unknown; meta?: unknown }>
    links?: { self: string }
  }

export const firstError = (answer: Answer) =>
  answer.body.errors?.[0] as { status: string; detail: string; source?: { pointer: string }; code: string }

/** The `relationships` member of a request: `{name: [type, id]}` for to-one, `{name: [type, [ids]]}` for to-many. */
const relationshipsOf = (relations: Readonly<Record<string, readonly [string, number | ReadonlyArray<number> | null]>>) =>
  Object.fromEntries(
    Object.entries(relations).map(([name, [type, id]]) => [
      name,
      { data: id === null ? null : Array.isArray(id) ? id.map((one) => ({ type, id: String(one) })) : { type, id: String(id) } }
    ])
  )

/** Creates a resource through the staff API and answers its id (fails the test when refused). */
export const create = (
  admin: Caller,
  path: string,
  type: string,
  attributes: Readonly<Record<string, unknown>>,
  relations: Readonly<Record<string, readonly [string, number | ReadonlyArray<number> | null]>> = {}
) =>
  Effect.gen(function* () {
    const answer = yield* api(admin, "POST", `/api/v1/${path}/`, { data: { type, attributes, relationships: relationshipsOf(relations) } })
    if (answer.status !== 201) return yield* Effect.dieMessage(`POST ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    return Number(resource(answer).id)
  })

export interface Fixture {
  readonly admin: Caller
  readonly alice: Caller
  readonly bob: Caller
  readonly carol: Caller
  readonly project: number
  readonly otherProject: number
  readonly group: number
  readonly choices: readonly [number, number]
  readonly task: number
  readonly siblingTask: number
  readonly otherTask: number
  readonly records: ReadonlyArray<number>
}

/**
 * A project with two tasks (alice and bob check `task`, only bob checks `siblingTask`), another project whose
 * task only carol checks, a choice group with two choices, three records in `task` and one in `otherTask`.
 */
export const seed = (suffix: string) =>
  Effect.gen(function* () {
    const admin = yield* signIn(`admin${suffix}`, { admin: true })
    const alice = yield* signIn(`alice${suffix}`)
    const bob = yield* signIn(`bob${suffix}`)
    const carol = yield* signIn(`carol${suffix}`)
    const project = yield* create(admin, "projects", "Project", { name: `Project ${suffix}` })
    const otherProject = yield* create(admin, "projects", "Project", { name: `Other ${suffix}` })
    const group = yield* create(admin, "choice-groups", "ChoiceGroup", { name: "Correctness" })
    const correct = yield* create(
      admin,
      "choices",
      "Choice",
      { name: "Correct", color: "#73B782", shortkeys: "c" },
      { choiceGroup: ["ChoiceGroup", group] }
    )
    const incorrect = yield* create(
      admin,
      "choices",
      "Choice",
      { name: "Incorrect", value: "wrong" },
      { choiceGroup: ["ChoiceGroup", group] }
    )
    const task = yield* create(
      admin,
      "tasks",
      "Task",
      { name: `Addresses ${suffix}`, description: "Check addresses", recordLinkTemplate: "https://example.org/{uid}?q={metadata.city:u}" },
      { project: ["Project", project], choiceGroup: ["ChoiceGroup", group], checkers: ["User", [alice.id, bob.id]] }
    )
    const siblingTask = yield* create(
      admin,
      "tasks",
      "Task",
      { name: `Sibling ${suffix}` },
      { project: ["Project", project], checkers: ["User", [bob.id]] }
    )
    const otherTask = yield* create(
      admin,
      "tasks",
      "Task",
      { name: `Other ${suffix}` },
      { project: ["Project", otherProject], checkers: ["User", [carol.id]] }
    )
    const records = yield* Effect.forEach(["a", "b", "c"], (uid) =>
      create(
        admin,
        "task-records",
        "TaskRecord",
        { uid, originalValue: `original ${uid}`, predictedValue: `predicted ${uid}`, metadata: { city: "New York" } },
        { task: ["Task", task] }
      )
    )
    yield* create(admin, "task-records", "TaskRecord", { uid: "z", originalValue: "other" }, { task: ["Task", otherTask] })
    return {
      admin,
      alice,
      bob,
      carol,
      project,
      otherProject,
      group,
      choices: [correct, incorrect],
      task,
      siblingTask,
      otherTask,
      records
    } satisfies Fixture
  })

/** A multipart form upload as `caller`; `files` are [field, file name, bytes]. */
export const upload = (
  caller: Caller,
  path: string,
  fields: Readonly<Record<string, string>>,
  files: ReadonlyArray<readonly [string, string, string | Uint8Array]>
) =>
  Effect.gen(function* () {
    const form = new FormData()
    for (const [name, value] of Object.entries(fields)) form.append(name, value)
    for (const [name, filename, content] of files) form.append(name, new Blob([content]), filename)
    const response = yield* request(path, { method: "POST", headers: { cookie: caller.cookie }, body: form })
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: (yield* bodyJson(response)) as Answer["body"]
    } satisfies Answer
  })
