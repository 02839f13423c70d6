import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { ExtractedDocument } from "../../src/extract/Document.ts"
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

  // Every file on a worker, whatever its size.
  const everyFileOffThread = ExtractionPool.layer({ anyBytes: 0, slowTypeBytes: 0 })
  it.layer(Layer.merge(everyFileOffThread.pipe(Layer.provide(Extractor.Default)), Extractor.Default))((it) => {
    it.effect("a PDF and a Word file extracted on a worker thread give what this thread's extractor gives", () =>
      Effect.gen(function* () {
        const pdf = path.join(dir, "manual.pdf")
        const docx = path.join(dir, "memo.docx")
        fs.writeFileSync(
          pdf,
          yield* Effect.promise(() =>
            pdfBytes({
              title: "Ledger",
              author: "Desk",
              created: new Date("2024-03-01T10:00:00Z"),
              pages: ["Offshore ledger page one", "Second page of the ledger"]
            })
          )
        )
        fs.writeFileSync(
          docx,
          yield* Effect.promise(() =>
            docxBytes({ title: "Memo", author: "Desk", created: "2024-03-01T10:00:00Z" }, ["The shipment left on Monday."])
          )
        )
        const pool = yield* ExtractionPool
        const extractor = yield* Extractor
        for (const file of [pdf, docx]) {
          const offThread = yield* pool.extract(file, options)
          const here = yield* extractor.extract(file, options)
          expect(offThread.content.length).toBeGreaterThan(10)
          expect(stable(offThread)).toEqual(stable(here))
        }
      })
    )

    it.effect("a file gone before its worker reads it is unreadable, with its path and reason", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip((yield* ExtractionPool).extract(path.join(dir, "gone.pdf"), options))
        expect(error._tag).toBe("DocumentUnreadable")
        expect(error.path).toBe(path.join(dir, "gone.pdf"))
        expect(error.reason).not.toBe("")
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
