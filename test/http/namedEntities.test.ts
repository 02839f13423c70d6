import { createHash } from "node:crypto"
import { mkdir, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { maxTextLength } from "../../src/http/legacy/NerHttp.ts"
import { compromisePipeline } from "../../src/ner/CompromisePipeline.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { indexFiles, writeText } from "../helpers/indexing.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"

const local = "local-datashare"
const sha384 = (text: string) => createHash("sha384").update(text).digest("hex")

interface EntityRow {
  readonly id: string
  readonly documentId: string
  readonly rootId: string
  readonly mention: string
  readonly offsets: ReadonlyArray<number>
  readonly isHidden: boolean
}

const runSql = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), server.context)).pipe(Effect.orDie)

const entities = (extractor: string) =>
  runSql(
    (sql) => sql<EntityRow>`
    SELECT id, document_id AS "documentId", root_id AS "rootId", mention, offsets::float8[] AS offsets, is_hidden AS "isHidden"
    FROM named_entities WHERE project = ${local} AND extractor = ${extractor} ORDER BY id`
  )

const documentStates = runSql(
  (sql) =>
    sql<{ id: string; content: string; nerTags: ReadonlyArray<string>; status: string }>`
    SELECT id, content, ner_tags AS "nerTags", status FROM documents WHERE project = ${local} ORDER BY id`
)

const post = (url: string, body: string) => request(url, { method: "POST", body })

/** Starts findNames and answers the finished task (its legacy view). */
const findNames = (pipeline: string) =>
  Effect.gen(function* () {
    const response = yield* post(`/api/task/findNames/${pipeline}`, JSON.stringify({ options: {} }))
    expect(response.status).toBe(200)
    const [task] = (yield* bodyJson(response)) as ReadonlyArray<{ name: string }>
    expect(task!.name).toMatch(/^org\.icij\.datashare\.nlp\.NlpApp@/)
    return yield* finishedTask(task!.name)
  })

const finishedTask = (name: string): Effect.Effect<{ state: string; result?: unknown }, never, TestServer> =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 600; attempt++) {
      const view = (yield* bodyJson(yield* request(`/api/task/${encodeURIComponent(name)}`))) as { state: string; result?: unknown }
      if (view.state !== "RUNNING") return view
      // A real pause: the tests run on the TestClock, which does not move by itself.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    }
    return yield* Effect.die(`task ${name} did not finish`)
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`named entities and NER endpoints on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("lists only the pipelines that run, and analyses plain text with them", () =>
        Effect.gen(function* () {
          const pipelines = yield* request("/api/ner/pipelines")
          expect(pipelines.status).toBe(200)
          expect(yield* bodyJson(pipelines)).toStrictEqual(["EMAIL", "CORENLP"])

          const text = "Contact foo@bar.com or foo@bar.com."
          const emails = yield* post("/api/ner/findNames/EMAIL", text)
          expect(emails.status).toBe(200)
          expect(yield* bodyJson(emails)).toStrictEqual([
            {
              category: "EMAIL",
              mention: "foo@bar.com",
              offsets: [8, 23],
              extractor: "EMAIL",
              extractorLanguage: "ENGLISH",
              isHidden: false,
              mentionNorm: "foo@bar.com",
              partsOfSpeech: null,
              mentionNormTextLength: 11
            }
          ])
          const names = (yield* bodyJson(
            yield* post(
              "/api/ner/findNames/CORENLP",
              "Angela Merkel visited Paris with her advisers last week and spoke about the economy."
            )
          )) as ReadonlyArray<{ category: string; mention: string }>
          expect(names.map((entity) => `${entity.category} ${entity.mention}`)).toEqual(
            expect.arrayContaining(["PERSON Angela Merkel", "LOCATION Paris"])
          )
          const french = "Le président de la République a rencontré les ministres à Paris pour discuter du budget de l'année prochaine."
          expect(yield* bodyJson(yield* post("/api/ner/findNames/CORENLP", french))).toStrictEqual([])
          const frenchEmail = (yield* bodyJson(
            yield* post("/api/ner/findNames/EMAIL", `${french} Écrivez à info@exemple.fr.`)
          )) as ReadonlyArray<{ mention: string; extractorLanguage: string }>
          expect(frenchEmail.map((entity) => [entity.mention, entity.extractorLanguage])).toStrictEqual([["info@exemple.fr", "FRENCH"]])
        })
      )

      it.effect("serves other requests while it analyses a long text, on a worker thread", () =>
        Effect.gen(function* () {
          const sentence = "Angela Merkel visited Paris with her advisers last week and spoke about the economy. "
          const count = Math.floor(compromisePipeline.maxRequestLength / sentence.length)
          const text = sentence.repeat(count)
          const finished: Array<string> = []
          const analysis = yield* Effect.fork(
            Effect.tap(post("/api/ner/findNames/CORENLP", text), () => Effect.sync(() => finished.push("findNames")))
          )
          // A real delay (the layer's clock is the test clock): the analysis has started when /version is asked.
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
          const version = yield* request("/version")
          finished.push("version")
          expect(version.status).toBe(200)
          const names = (yield* bodyJson(yield* Effect.flatMap(analysis.await, (exit) => exit))) as ReadonlyArray<{
            mention: string
            offsets: ReadonlyArray<number>
          }>
          expect(finished).toEqual(["version", "findNames"])
          expect(names.find((entity) => entity.mention === "Angela Merkel")?.offsets.length).toBe(count)
        })
      )

      it.effect("answers 400 for an unknown pipeline, [] for an empty text, 413 for a text too long", () =>
        Effect.gen(function* () {
          for (const url of ["/api/ner/findNames/OPENNLP", "/api/task/findNames/email"]) {
            const response = yield* post(url, "text")
            expect(response.status).toBe(400)
            expect(((yield* bodyJson(response)) as { error: string }).error).toMatch(
              /unknown pipeline .*available pipelines: EMAIL, CORENLP/
            )
          }
          const empty = yield* post("/api/ner/findNames/EMAIL", "  ")
          expect(empty.status).toBe(200)
          expect(yield* bodyJson(empty)).toStrictEqual([])
          const huge = yield* post("/api/ner/findNames/EMAIL", "a".repeat(maxTextLength + 1))
          expect(huge.status).toBe(413)
          expect(((yield* bodyJson(huge)) as { error: string }).error).toContain(`at most ${maxTextLength}`)
          // CORENLP reads about 25 KB a second: it analyses less per request, and says how much.
          const long = yield* post("/api/ner/findNames/CORENLP", "a".repeat(compromisePipeline.maxRequestLength + 1))
          expect(long.status).toBe(413)
          expect(yield* bodyJson(long)).toStrictEqual({
            error: `the text to analyse has ${compromisePipeline.maxRequestLength + 1} characters; the CORENLP pipeline analyses at most ${compromisePipeline.maxRequestLength} per request`
          })
        })
      )

      it.effect("findNames writes entities with the reference's ids and offsets, marks documents, and adds nothing when run again", () =>
        Effect.gen(function* () {
          const first = yield* writeText("first.txt", "Mail alice@example.org about bob@example.com.\nAgain alice@example.org.")
          const second = yield* writeText("second.txt", "Ask alice@example.org.")
          const documents = yield* indexFiles(local, [first, second])

          const task = yield* findNames("EMAIL")
          expect(task).toMatchObject({ state: "DONE", result: 2 })
          for (const document of yield* documentStates) {
            expect(document.nerTags).toStrictEqual(["EMAIL"])
            expect(document.status).toBe("DONE")
          }
          const found = yield* entities("EMAIL")
          expect(found.map((entity) => entity.mention).sort()).toStrictEqual(["alice@example.org", "alice@example.org", "bob@example.com"])
          const contents = new Map(documents.map((document) => [document.id, document.content]))
          for (const entity of found) {
            expect(entity.id).toBe(sha384(`${entity.documentId}|[${entity.offsets.join(", ")}]|EMAIL|${entity.mention}`))
            for (const offset of entity.offsets)
              expect(contents.get(entity.documentId)!.slice(offset, offset + entity.mention.length)).toBe(entity.mention)
          }
          const alice = found.find((entity) => entity.mention === "alice@example.org" && entity.offsets.length === 2)!
          const view = yield* request(`/api/${local}/namedEntities/${alice.id}?routing=${alice.rootId}`)
          expect(view.status).toBe(200)
          expect(yield* bodyJson(view)).toStrictEqual({
            category: "EMAIL",
            mention: "alice@example.org",
            offsets: alice.offsets,
            extractor: "EMAIL",
            extractorLanguage: "ENGLISH",
            isHidden: false,
            mentionNorm: "alice@example.org",
            partsOfSpeech: null,
            mentionNormTextLength: 17
          })
          expect((yield* request(`/api/${local}/namedEntities/${alice.id}?routing=${"f".repeat(96)}`)).status).toBe(404)
          const missing = yield* request(`/api/${local}/namedEntities/${"0".repeat(96)}`)
          expect(missing.status).toBe(404)
          expect(yield* bodyJson(missing)).toHaveProperty("error")
          expect((yield* request(`/api/not-a-project/namedEntities/${alice.id}`)).status).toBe(403)

          // has_child sees the entities: the documents mentioning bob.
          const search = yield* post(
            `/api/index/search/${local}/_search`,
            JSON.stringify({
              query: { has_child: { type: "NamedEntity", query: { term: { mentionNorm: "bob@example.com" } } } }
            })
          )
          expect(search.status).toBe(200)
          const hits = ((yield* bodyJson(search)) as { hits: { hits: ReadonlyArray<{ _id: string }> } }).hits.hits
          expect(hits.map((hit) => hit._id)).toStrictEqual([found.find((entity) => entity.mention === "bob@example.com")!.documentId])

          const again = yield* findNames("EMAIL")
          expect(again).toMatchObject({ state: "DONE", result: 0 })
          expect(yield* entities("EMAIL")).toStrictEqual(found)
        })
      )

      it.effect("hide hides every entity with that mention, in every document", () =>
        Effect.gen(function* () {
          const options = yield* request(`/api/${local}/namedEntities/hide/alice@example.org`, { method: "OPTIONS" })
          expect(options.headers.get("access-control-allow-methods")).toBe("OPTIONS, PUT")
          const hide = yield* request(`/api/${local}/namedEntities/hide/alice@example.org`, { method: "PUT" })
          expect(hide.status).toBe(200)
          const found = yield* entities("EMAIL")
          expect(found.filter((entity) => entity.mention === "alice@example.org").map((entity) => entity.isHidden)).toStrictEqual([
            true,
            true
          ])
          expect(found.filter((entity) => entity.mention === "bob@example.com").map((entity) => entity.isHidden)).toStrictEqual([false])
          const alice = found.find((entity) => entity.mention === "alice@example.org")!
          const view = yield* request(`/api/${local}/namedEntities/${alice.id}?routing=${alice.rootId}`)
          expect(yield* bodyJson(view)).toMatchObject({ isHidden: true })
          expect((yield* request(`/api/${local}/namedEntities/hide/nobody@example.org`, { method: "PUT" })).status).toBe(200)
        })
      )

      it.effect("documents indexed while findNames runs are processed too", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const folder = path.join(server.workDir, "incoming")
          yield* Effect.promise(() => mkdir(folder, { recursive: true }))
          const count = 40
          yield* Effect.promise(() =>
            Promise.all(
              Array.from({ length: count }, (_, i) =>
                writeFile(path.join(folder, `mail-${i}.txt`), `From person${i}@example.net to the desk.`)
              )
            )
          )
          const started = yield* post(`/api/task/batchUpdate/index/${folder.slice(1)}`, JSON.stringify({ options: {} }))
          expect(started.status).toBe(200)
          const ingestion = (yield* bodyJson(started)) as ReadonlyArray<{ name: string }>
          const ner = yield* findNames("EMAIL")
          expect(ner.state).toBe("DONE")
          for (const task of ingestion) expect((yield* finishedTask(task.name)).state).toBe("DONE")
          const states = yield* documentStates
          expect(states.filter((document) => document.content.startsWith("From person"))).toHaveLength(count)
          expect(states.filter((document) => !document.nerTags.includes("EMAIL"))).toStrictEqual([])
          const mentions = new Set((yield* entities("EMAIL")).map((entity) => entity.mention))
          for (let i = 0; i < count; i++) expect(mentions.has(`person${i}@example.net`)).toBe(true)
        })
      )
    })
  })
}
