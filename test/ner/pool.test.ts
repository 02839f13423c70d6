import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { compromisePipeline } from "../../src/ner/CompromisePipeline.ts"
import { emailPipeline } from "../../src/ner/EmailPipeline.ts"
import { NerPool } from "../../src/ner/NerPool.ts"
import { annotateDocument } from "../../src/ner/Annotate.ts"

const sentence = "Angela Merkel visited Paris with her advisers last week and wrote to press@example.org about it. "

describe("named-entity worker threads", () => {
  layer(NerPool.Default, { timeout: 120_000 })((it) => {
    it.effect("find what the pipelines find in this thread, document by document and in order (EMAIL runs in this thread)", () =>
      Effect.gen(function* () {
        const pool = yield* NerPool
        const documents = Array.from({ length: 7 }, (_, i) => ({
          content: `${i}: ${sentence.repeat(i + 1)}`,
          contentType: i === 3 ? "message/rfc822" : "text/plain",
          metadata: i === 3 ? { tika_metadata_message_from: "alice@example.org" } : {}
        }))
        for (const pipeline of [compromisePipeline, emailPipeline]) {
          expect(yield* pool.annotateDocuments(pipeline, documents)).toStrictEqual(
            documents.map((document) => annotateDocument(pipeline, document))
          )
        }
        expect(yield* pool.annotateDocuments(compromisePipeline, [])).toStrictEqual([])
      })
    )

    it.effect("leave the event loop free while they read a long text", () =>
      Effect.gen(function* () {
        const pool = yield* NerPool
        const content = sentence.repeat(Math.floor(compromisePipeline.maxRequestLength / sentence.length))
        // Warmed up: the first call starts the workers and loads the lexicon.
        yield* pool.annotateDocuments(compromisePipeline, [{ content: sentence, contentType: "text/plain", metadata: {} }])
        let ticks = 0
        const timer = setInterval(() => ticks++, 10)
        const started = performance.now()
        const [annotations] = yield* pool
          .annotateDocuments(compromisePipeline, [{ content, contentType: "text/plain", metadata: {} }])
          .pipe(Effect.ensuring(Effect.sync(() => clearInterval(timer))))
        const elapsed = performance.now() - started
        expect(annotations?.filter((annotation) => annotation.mention === "Angela Merkel").length).toBe(
          Math.floor(content.length / sentence.length)
        )
        // Timers of 10 ms kept firing through the analysis: at least a third of them on a busy machine.
        expect(ticks).toBeGreaterThan(elapsed / 10 / 3)
      })
    )

    it.effect("an unknown pipeline fails with a typed error and the pool goes on", () =>
      Effect.gen(function* () {
        const pool = yield* NerPool
        const failure = yield* Effect.flip(
          pool.annotateDocuments({ ...compromisePipeline, name: "NOPE" }, [{ content: sentence, contentType: "text/plain", metadata: {} }])
        )
        expect(failure).toMatchObject({ _tag: "NerWorkerFailed", reason: "unknown pipeline NOPE" })
        expect(
          yield* pool.annotateDocuments(compromisePipeline, [{ content: sentence, contentType: "text/plain", metadata: {} }])
        ).toHaveLength(1)
      })
    )
  })
})
