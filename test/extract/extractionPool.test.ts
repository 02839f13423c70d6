import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import type { ExtractedDocument } from "../../src/extract/Document.ts"
import type { DocumentUnreadable } from "../../src/extract/ExtractErrors.ts"
import { ExtractionPool } from "../../src/extract/ExtractionPool.ts"
import { Extractor } from "../../src/extract/Extractor.ts"
import { makeWorkerPool } from "../../src/workers/WorkerPool.ts"
import { docxBytes } from "../fixtures/office.ts"
import { pdfBytes } from "../fixtures/binaries.ts"

const options = { project: "pool", ocr: false, maxContentLength: -1 }

/** Fields that differ between two extractions of the same file whatever thread runs them. */
const stable = ({ extractionDate: _, children, ...document }: ExtractedDocument) => ({
  ...document,
  children: children.length
})

describe("extraction off the event loop", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-extraction-pool-"))

  /** A claim of a PDF, a Word file and a small HTML page, written once. */
  const claim = Effect.promise(async () => {
    const pdf = path.join(dir, "manual.pdf")
    const docx = path.join(dir, "memo.docx")
    const html = path.join(dir, "page.html")
    if (!fs.existsSync(html)) {
      fs.writeFileSync(
        pdf,
        await pdfBytes({
          title: "Ledger",
          author: "Desk",
          created: new Date("2024-03-01T10:00:00Z"),
          pages: ["Offshore ledger page one", "Second page of the ledger"]
        })
      )
      fs.writeFileSync(
        docx,
        await docxBytes({ title: "Memo", author: "Desk", created: "2024-03-01T10:00:00Z" }, ["The shipment left on Monday."])
      )
      fs.writeFileSync(html, "<html><head><title>Registry</title></head><body><p>Leaked memo about the shipping registry</p></body></html>")
    }
    return [pdf, docx, html]
  })

  const documents = (answers: ReadonlyArray<Either.Either<ExtractedDocument, DocumentUnreadable>>) =>
    answers.map((answer) => stable(Either.getOrThrow(answer)))

  // Every claim on a worker, whatever its size; and every claim on this thread.
  const everyClaimOffThread = ExtractionPool.layer({ claimBytes: 0, slowTypeBytes: 0 }).pipe(Layer.provide(Extractor.Default))
  const everyClaimHere = ExtractionPool.layer({ claimBytes: Infinity, slowTypeBytes: Infinity }).pipe(Layer.provide(Extractor.Default))

  it.layer(Layer.merge(everyClaimOffThread, Extractor.Default))((it) => {
    it.effect("a claim extracted on a worker thread gives what this thread's extractor gives, in the order of its paths", () =>
      Effect.gen(function* () {
        const paths = yield* claim
        const offThread = documents(yield* (yield* ExtractionPool).extractAll(paths, options))
        const extractor = yield* Extractor
        const here = yield* Effect.forEach(paths, (file) => Effect.map(extractor.extract(file, options), stable))
        expect(offThread.map((document) => document.content.length).every((length) => length > 10)).toBe(true)
        expect(offThread).toEqual(here)
      })
    )

    it.effect("a file gone before its worker reads it is unreadable, with its path and reason, and the others of its claim are read", () =>
      Effect.gen(function* () {
        const [pdf] = yield* claim
        const [gone, read] = yield* (yield* ExtractionPool).extractAll([path.join(dir, "gone.pdf"), pdf!], options)
        const error = Either.getLeft(gone!).pipe(Option.getOrThrow)
        expect(error._tag).toBe("DocumentUnreadable")
        expect(error.path).toBe(path.join(dir, "gone.pdf"))
        expect(error.reason).not.toBe("")
        expect(Either.getOrThrow(read!).content).toContain("Offshore ledger")
      })
    )
  })

  it.layer(everyClaimHere)((it) => {
    it.effect("a claim kept on this thread gives the same answers", () =>
      Effect.gen(function* () {
        const paths = yield* claim
        const here = documents(yield* (yield* ExtractionPool).extractAll(paths, options))
        expect(here.map((document) => document.path)).toEqual(paths)
        expect(here[2]?.content).toContain("shipping registry")
      })
    )
  })

  // A stand-in worker: answers each file as unreadable with reason "seen", and dies on a file named "poison".
  const dyingWorker = path.join(dir, "dying-worker.mjs")
  fs.writeFileSync(
    dyingWorker,
    `import { parentPort } from "node:worker_threads"
     parentPort.on("message", ({ id, request }) => request.paths.some((p) => p.endsWith("poison"))
       ? process.exit(7)
       : parentPort.postMessage({ id, answer: request.paths.map((p) => ({ unreadable: { path: p, reason: "seen" } })) }))`
  )
  it.layer(
    ExtractionPool.layer({ claimBytes: 0, slowTypeBytes: 0 }, new URL(`file://${dyingWorker}`)).pipe(Layer.provide(Extractor.Default))
  )((it) => {
    it.effect("a thread that dies on a claim costs only the file it died on: the others are extracted again, one by one", () =>
      Effect.gen(function* () {
        const answers = yield* (yield* ExtractionPool).extractAll(["/a", "/poison", "/b"], options)
        const reasons = answers.map((answer) => Either.getLeft(answer).pipe(Option.getOrThrow).reason)
        expect(reasons[0]).toBe("seen")
        expect(reasons[1]).toContain("code 7")
        expect(reasons[2]).toBe("seen")
      })
    )
  })

  it.scoped("a worker thread that exits fails the requests it held with WorkerFailed, and the next request gets a new worker", () =>
    Effect.gen(function* () {
      const entry = path.join(dir, "exiting-worker.mjs")
      // Answers "ok" except to "exit", on which the thread ends without answering.
      fs.writeFileSync(
        entry,
        `import { parentPort } from "node:worker_threads"
         parentPort.on("message", ({ id, request }) => request === "exit" ? process.exit(3) : parentPort.postMessage({ id, answer: "ok:" + request }))`
      )
      const pool = yield* makeWorkerPool<string, string>(new URL(`file://${entry}`), 1)
      expect(yield* pool.run("first")).toBe("ok:first")
      const failure = yield* Effect.flip(pool.run("exit"))
      expect(failure._tag).toBe("WorkerFailed")
      expect(failure.reason).toContain("code 3")
      expect(yield* pool.run("again")).toBe("ok:again")
    })
  )
})
