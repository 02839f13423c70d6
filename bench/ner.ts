/**
 * `npm run bench -- ner`: findNames over BENCH_DOCUMENTS (default 10 000) generated English documents (~0.6 KB of
 * news-style sentences with people, organisations, places and e-mail addresses each), from the submit to the task
 * DONE, on the PostgreSQL server (the embedded database when the server is not reachable). The baseline, measured
 * in the same run on the same texts, calls the pipeline directly and groups its entities, with no database: the
 * ratio is our documents per second over the baseline's, the faster of two direct runs (higher is better; the target
 * is ≥ 0.8). CORENLP
 * (compromise) is the measured pipeline; EMAIL, whose regular expression costs next to nothing, is reported too, as
 * a measure of the task's own overhead per document.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { Engine } from "../src/engine/Engine.ts"
import { NerJob } from "../src/engine/kinds/NerJob.ts"
import { NerJobLive } from "../src/engine/kinds/NerJobLive.ts"
import { engineLayer } from "../src/engine/Layer.ts"
import { annotate } from "../src/ner/Annotate.ts"
import { entitiesOf, type NerPipeline } from "../src/ner/Pipeline.ts"
import { compromisePipeline } from "../src/ner/CompromisePipeline.ts"
import { NerPool } from "../src/ner/NerPool.ts"
import { emailPipeline } from "../src/ner/EmailPipeline.ts"
import { DocumentIndex, type IndexedDocument } from "../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../src/search/postgres/PostgresDocumentIndex.ts"
import { testDatabase } from "../test/engine/helpers.ts"
import { postgresAvailable } from "../test/helpers/databases.ts"
import { report } from "./report.ts"

const documentCount = Number(process.env.BENCH_DOCUMENTS ?? 10_000)
const project = "bench-ner"

const people = ["Maria Garcia", "John Smith", "Angela Merkel", "Tim Cook", "Sarah Johnson", "Michael Brown", "Emmanuel Macron", "Li Wei"]
const organisations = [
  "the United Nations",
  "Microsoft Corporation",
  "Goldman Sachs",
  "the World Health Organization",
  "the European Commission"
]
const places = ["Berlin", "Paris", "Nairobi", "Toronto", "Geneva", "Chicago", "Lisbon", "New York"]

/** Deterministic texts: the same corpus on every run. */
const texts = (count: number) => {
  let seed = 42
  const next = (length: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed % length
  }
  return Array.from({ length: count }, (_, i) =>
    [
      `${people[next(people.length)]} met officials of ${organisations[next(organisations.length)]} in ${places[next(places.length)]} on Monday.`,
      `The meeting was arranged by ${people[next(people.length)]}, who wrote to desk${i}@example.org about the contract.`,
      `According to ${organisations[next(organisations.length)]}, the payments went through ${places[next(places.length)]} and ${places[next(places.length)]}.`,
      `Reporters in ${places[next(places.length)]} asked ${people[next(people.length)]} for comment; the reply came from press${next(50)}@example.com.`,
      `Documents seen by this newspaper show that the transfers were approved in ${2_000 + next(25)} after a long review of the accounts.`
    ].join(" ")
  )
}

const documentOf = (content: string, i: number): IndexedDocument => {
  const id = i.toString(16).padStart(96, "0")
  return {
    id,
    path: `/bench/${i}.txt`,
    dirname: "/bench",
    content,
    contentLength: content.length,
    contentTextLength: content.length,
    contentType: "text/plain",
    contentEncoding: "UTF-8",
    language: "ENGLISH",
    metadata: {},
    extractionDate: new Date().toISOString(),
    extractionLevel: 0,
    parentDocument: null,
    rootDocument: id,
    tags: [],
    nerTags: [],
    status: "INDEXED"
  }
}

/** Seconds the pipeline takes over every document, called directly; answers the entities found too. */
const direct = (pipeline: NerPipeline, documents: ReadonlyArray<IndexedDocument>) => {
  const started = performance.now()
  let entities = 0
  for (const document of documents) entities += entitiesOf(annotate(pipeline, document.content), document, pipeline.name).length
  return { seconds: (performance.now() - started) / 1_000, entities }
}

/** Seconds from submitting findNames to its task DONE, and the entities it stored. */
const throughTask = (pipeline: NerPipeline) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const started = performance.now()
    const task = yield* (yield* Engine).submit(NerJob, { project, pipeline: pipeline.name }, { userId: "bench" })
    const end = yield* sql<{ state: string; result: unknown }>`SELECT state, result FROM tasks WHERE id = ${task.id}`.pipe(
      Effect.map((rows) => rows[0]),
      Effect.filterOrFail((row) => row !== undefined && row.state !== "QUEUED" && row.state !== "RUNNING"),
      Effect.retry(Schedule.spaced("20 millis"))
    )
    const seconds = (performance.now() - started) / 1_000
    if (end?.state !== "DONE" || end.result !== documentCount) return yield* Effect.dieMessage(`findNames ended ${JSON.stringify(end)}`)
    const rows = yield* sql<{
      count: number
    }>`SELECT count(*)::int AS count FROM named_entities WHERE project = ${project} AND extractor = ${pipeline.name}`
    return { seconds, entities: rows[0]?.count ?? 0 }
  })

export const run = async () => {
  const documents = texts(documentCount).map(documentOf)
  const megabytes = documents.reduce((total, document) => total + document.content.length, 0) / 1024 ** 2
  const database = postgresAvailable ? "postgres" : "pglite"
  const engine = engineLayer({ parallelism: 2 })
  const layer = Layer.mergeAll(engine, NerJobLive.pipe(Layer.provide(engine))).pipe(
    Layer.provideMerge(NerPool.Default),
    Layer.provideMerge(PostgresDocumentIndex),
    Layer.provideMerge(testDatabase(database))
  )
  const figures = await Effect.runPromise(
    Effect.gen(function* () {
      yield* (yield* DocumentIndex).bulkIndex(project, documents)
      const measured = []
      for (const pipeline of [compromisePipeline, emailPipeline]) {
        // Warmed up first, so that loading the lexicon and compiling do not count against the baseline.
        direct(pipeline, documents.slice(0, 200))
        const before = direct(pipeline, documents)
        const ours = yield* throughTask(pipeline)
        // The faster of two direct runs, one on each side of the task: the machine is shared.
        const after = direct(pipeline, documents)
        const baseline = before.seconds <= after.seconds ? before : after
        process.stdout.write(
          `${pipeline.name}: direct runs ${before.seconds.toFixed(1)} s before the task, ${after.seconds.toFixed(1)} s after\n`
        )
        if (ours.entities !== baseline.entities)
          return yield* Effect.dieMessage(`${pipeline.name}: ${ours.entities} entities stored, ${baseline.entities} found directly`)
        measured.push({ pipeline: pipeline.name, ours, baseline })
      }
      return measured
    }).pipe(Effect.provide(layer), Effect.scoped)
  )
  const rate = (seconds: number) => Math.round(documentCount / seconds)
  const ratio = (entry: (typeof figures)[number]) => Math.round((entry.baseline.seconds / entry.ours.seconds) * 1000) / 1000
  process.stdout.write(`${documentCount} documents, ${megabytes.toFixed(1)} MB, on ${database}\n`)
  for (const entry of figures) {
    process.stdout.write(
      `${entry.pipeline}: findNames ${rate(entry.ours.seconds)} docs/s (${entry.ours.seconds.toFixed(1)} s, ${entry.ours.entities} entities); ` +
        `direct pipeline ${rate(entry.baseline.seconds)} docs/s (${entry.baseline.seconds.toFixed(1)} s); ratio ${ratio(entry)}\n`
    )
  }
  const [names, emails] = figures
  report("ner", {
    documents: documentCount,
    megabytes: Math.round(megabytes * 100) / 100,
    database,
    pipeline: names!.pipeline,
    docsPerSecond: rate(names!.ours.seconds),
    baselineDocsPerSecond: rate(names!.baseline.seconds),
    ratio: ratio(names!),
    emailDocsPerSecond: rate(emails!.ours.seconds),
    emailBaselineDocsPerSecond: rate(emails!.baseline.seconds),
    emailRatio: ratio(emails!)
  })
}
