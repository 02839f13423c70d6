import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ReviewBridgeRpcs } from "../../src/rpc/ReviewBridgeRpcs.ts"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { basic } from "../helpers/users.ts"
import { runSql } from "../review/helpers.ts"
import { indexCorpus, reviewSetup, runBatchSearch, signInWith, storedHits, taskRecords } from "./helpers.ts"

/** A typed client of the review bridge RPCs, signed in with Basic credentials on the transport. */
const bridgeClient = (login: string) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const http = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client) =>
        client.pipe(HttpClient.mapRequest(HttpClientRequest.setHeaders({ authorization: basic(login, "pw") })), HttpClient.filterStatusOk)
      )
    ).pipe(Layer.provide(FetchHttpClient.layer))
    const protocol = RpcClient.layerProtocolHttp({ url: `${server.url}/rpc` }).pipe(Layer.provide([http, RpcSerialization.layerNdjson]))
    return yield* RpcClient.make(ReviewBridgeRpcs).pipe(Effect.provide(yield* Layer.build(protocol)))
  })

describe("review bridge RPCs", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped("make a task of a batch search's hits, tag confirmed documents, and refuse callers without the project", () =>
      Effect.gen(function* () {
        yield* indexCorpus
        const setup = yield* reviewSetup("rpc")
        const uuid = yield* runBatchSearch(setup.admin, ["contract", "offshore"])
        const hits = yield* storedHits(uuid)
        const client = yield* bridgeClient(setup.admin.login)
        const request = { batchSearch: uuid, project: setup.reviewProject, choiceGroup: setup.group, checkers: [setup.alice.id] }
        const result = yield* client.taskFromBatchSearch(request)
        expect(result).toEqual({ task: result.task, createdTask: true, records: hits.length, skipped: 0 })
        const again = yield* client.taskFromBatchSearch({ batchSearch: uuid, task: result.task })
        expect(again).toEqual({ task: result.task, createdTask: false, records: 0, skipped: hits.length })

        const [first] = yield* taskRecords(result.task)
        yield* runSql(
          (sql) =>
            sql`UPDATE review_task_record_reviews SET status = 'DONE', choice_id = ${setup.correct} WHERE task_record_id = ${first!.id}`
        )
        expect(yield* client.tagReviewedDocuments({ task: result.task, tag: "rpc-checked", confirmingValues: ["Correct"] })).toEqual({
          records: 1,
          documents: 1
        })

        yield* signInWith("rpc-outsider", { admin: true, projects: ["elsewhere"] })
        const outsider = yield* bridgeClient("rpc-outsider")
        expect(yield* Effect.flip(outsider.taskFromBatchSearch(request))).toMatchObject({ _tag: "ReviewBridgeForbidden" })
        const checker = yield* bridgeClient(setup.alice.login)
        expect(
          yield* Effect.flip(checker.tagReviewedDocuments({ task: result.task, tag: "x", confirmingValues: ["Correct"] }))
        ).toMatchObject({
          _tag: "ReviewBridgeForbidden"
        })
        expect(yield* Effect.flip(client.taskFromBatchSearch({ ...request, queries: ["unknown"] }))).toMatchObject({
          _tag: "ReviewBridgeInvalid",
          field: "queries"
        })
      })
    )
  })
})
