import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Ref } from "effect"
import { DatabaseInfo } from "../../db/Database.ts"
import { InteractiveFirst } from "../../db/InteractiveFirst.ts"
import { DocumentQueue, type QueuedFile } from "../../domain/ingest/DocumentQueue.ts"
import { queueOf } from "../../domain/ingest/IngestOptions.ts"
import { ExtractionPool } from "../../extract/ExtractionPool.ts"
import { DocumentIndex, type IndexedDocument } from "../../search/DocumentIndex.ts"
import { indexedDocuments } from "../../search/indexedDocuments.ts"
import { type IndexCheckpoint, IndexJob } from "./IndexJob.ts"

/**
 * Files one worker claims, extracts and writes per transaction: a stop loses at most two claims' work per worker (the
 * one being written and the next one being extracted). Fewer, larger transactions cost fewer statements and commits.
 */
const claimSize = 64
/**
 * Most extracted bytes one transaction writes (a claim's files are split into as many as needed; a file larger than
 * that is written alone). The embedded database runs one statement at a time for everyone, so a search waits for the
 * transaction in progress: there they stay small, and smaller still while people search (a 128 KB transaction of real
 * pages takes about 30 ms at the median and 200 ms at the 99th percentile there, a 512 KB one four times that; fewer,
 * larger transactions index faster). A server runs them side by side.
 */
const transactionBytes = { pglite: 512 * 1024, pgliteWhileSearching: 128 * 1024, postgres: 8 * 1024 * 1024 } as const
/**
 * Workers for a task's `parallelism` (the machine's cores by default): each keeps two things busy at once, the
 * extraction of its next claim (on this thread or the extraction threads) and the database writing the one before. On
 * two cores, two workers indexed real documents no faster than one, and searches meanwhile waited longer for the
 * cores (p99 334 against 200 ms on the server).
 */
const workersFor = (parallelism: number) => Math.ceil(parallelism / 2)
/** How often an idle worker looks again while a scan of its project may still queue files. */
const scanPollInterval = "200 millis"
/** Least time between two counts of the files left, for the progress: each count reads the whole queue. */
const progressCountMillis = 500

/**
 * A document that could not be extracted (corrupt, encrypted, cut by a limit) is stored with status FAILED beside its
 * `extractionError`, so that it is not taken for an indexed document that happens to be empty.
 */
const withFailureStatus = (document: IndexedDocument): IndexedDocument =>
  document.extractionError === undefined ? document : { ...document, status: "FAILED" }

/** The files of one transaction, their documents, and the bytes extracted from them. */
interface Transaction {
  readonly files: ReadonlyArray<QueuedFile>
  readonly documents: ReadonlyArray<IndexedDocument>
  readonly bytes: number
}

/** A claim's extracted files cut, in order, into transactions of at most `budget` bytes (a larger file alone). */
const transactionsOf = (
  extracted: ReadonlyArray<{ readonly file: QueuedFile; readonly documents: ReadonlyArray<IndexedDocument>; readonly bytes: number }>,
  budget: number
): ReadonlyArray<Transaction> => {
  const transactions: Array<{ files: Array<QueuedFile>; documents: Array<IndexedDocument>; bytes: number }> = []
  for (const { file, documents, bytes } of extracted) {
    const last = transactions.at(-1)
    if (last !== undefined && last.bytes + bytes <= budget) {
      last.files.push(file)
      last.documents.push(...documents)
      last.bytes += bytes
    } else transactions.push({ files: [file], documents: [...documents], bytes })
  }
  return transactions
}

export const IndexJobLive = IndexJob.toLayer((payload, context) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const queue = yield* DocumentQueue
    const index = yield* DocumentIndex
    const extractor = yield* ExtractionPool
    const claimant = { taskId: context.taskId, attempt: context.attempt }
    const queueKey = { project: payload.project, queueName: queueOf(payload) }
    const databaseKind = (yield* DatabaseInfo).kind
    // Present on the embedded database: each write waits its turn behind the searches in progress (see InteractiveFirst).
    const interactiveFirst = yield* Effect.serviceOption(InteractiveFirst)
    const inTurn = <A, E, R>(write: Effect.Effect<A, E, R>) =>
      interactiveFirst._tag === "Some" ? interactiveFirst.value.background(write) : write
    const budget = Effect.gen(function* () {
      if (databaseKind === "postgres") return transactionBytes.postgres
      const searching = interactiveFirst._tag === "Some" && (yield* interactiveFirst.value.searching)
      return searching ? transactionBytes.pgliteWhileSearching : transactionBytes.pglite
    })
    const extractOptions = {
      project: payload.project,
      ocr: payload.ocr,
      maxContentLength: payload.maxContentLength,
      language: payload.language
    }
    const done = yield* Ref.make(Option.getOrElse(context.checkpoint.saved, (): IndexCheckpoint => ({ files: 0, bytes: 0 })))
    // Checkpoints are saved in order, so that the last one committed is the largest.
    const checkpointLock = yield* Effect.makeSemaphore(1)
    // When the files left were last counted (the first batch always counts them).
    let lastCounted = Number.NEGATIVE_INFINITY

    // An unreadable file (gone since the scan, no permission) is skipped and still counts as taken, with no bytes.
    const extract = (file: QueuedFile) =>
      extractor.extract(file.path, extractOptions).pipe(
        Effect.map((root) => ({ documents: indexedDocuments(root).map(withFailureStatus), bytes: root.contentLength })),
        Effect.catchTag("DocumentUnreadable", (error) =>
          Effect.as(Effect.logWarning(`index: skipped ${error.message}`), { documents: [], bytes: 0 })
        )
      )

    const claimAndExtract = Effect.gen(function* () {
      const files = yield* queue.claim(queueKey, claimant, claimSize)
      // One after the other: small files are read synchronously, and a fiber per file cost more than most extractions.
      const extracted = yield* Effect.forEach(files, (file) => Effect.map(extract(file), (result) => ({ file, ...result })))
      return transactionsOf(extracted, yield* budget)
    })

    const write = ({ files, documents, bytes }: Transaction) =>
      Effect.gen(function* () {
        yield* inTurn(
          sql.withTransaction(
            Effect.gen(function* () {
              // The commit need not wait for the WAL flush: a crash can only lose whole batches, documents and queue
              // removals together, whose files are then still queued and indexed again.
              yield* sql`SET LOCAL synchronous_commit TO OFF`
              if (documents.length > 0) yield* index.bulkIndex(payload.project, documents, { finishLater: true })
              yield* queue.remove(files.map((file) => file.id))
              yield* checkpointLock.withPermits(1)(
                Ref.updateAndGet(done, (count) => ({ files: count.files + files.length, bytes: count.bytes + bytes })).pipe(
                  Effect.flatMap(context.checkpoint.save)
                )
              )
            })
          )
        )
        // The documents' lexicon words, on the embedded database: in steps of their own, so that a search waits less.
        yield* index.finishWrites(payload.project)
        const now = yield* Clock.currentTimeMillis
        if (now - lastCounted >= progressCountMillis) {
          lastCounted = now
          const taken = (yield* Ref.get(done)).files
          yield* context.reportProgress(taken / (taken + (yield* queue.remaining(queueKey))))
        }
      })

    const worker = Effect.gen(function* () {
      let scansOver = false
      let claimed = yield* claimAndExtract
      for (;;) {
        if (claimed.length > 0) {
          // The next claim is extracted while this one is written, so that extraction and the database overlap.
          const [, next] = yield* Effect.all([Effect.forEach(claimed, write, { discard: true }), claimAndExtract], { concurrency: 2 })
          claimed = next
        } else if (scansOver) return
        else {
          // Files queued before the last scan ended are committed by then: one more claim finds them.
          scansOver = !(yield* queue.scanning(queueKey))
          if (!scansOver) yield* Effect.sleep(scanPollInterval)
          claimed = yield* claimAndExtract
        }
      }
    })

    yield* index.createIndex(payload.project)
    // What a stopped attempt's last writes left for later.
    yield* index.finishWrites(payload.project)
    yield* Effect.all(
      Array.from({ length: workersFor(payload.parallelism) }, () => worker),
      { concurrency: "unbounded", discard: true }
    )
    yield* index.refresh()
    return (yield* Ref.get(done)).files
  }).pipe(Effect.orDie)
)
