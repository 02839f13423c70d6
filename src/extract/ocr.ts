import { type ExecFileException, execFile } from "node:child_process"
import { writeFile } from "node:fs/promises"
import { Effect } from "effect"
import type { Parser } from "./Document.ts"
import { ExtractionFailed, failedTo } from "./ExtractErrors.ts"
import { parseLanguage } from "./Languages.ts"
import { removeFile, type Source, tempPath } from "./Source.ts"

const run = (binary: string, args: ReadonlyArray<string>, timeout: number) =>
  Effect.async<string, ExecFileException>((resume, signal) => {
    execFile(binary, args, { signal, timeout, encoding: "utf8", maxBuffer: 64 * 1024 ** 2 }, (error, stdout) =>
      resume(error === null ? Effect.succeed(stdout) : Effect.fail(error))
    )
  })

/** Whether the OCR engine can run: `tesseract --version` succeeds. */
export const tesseractInstalled = (binary: string) =>
  run(binary, ["--version"], 10_000).pipe(
    Effect.as(true),
    Effect.catchAll((error) =>
      Effect.logDebug(`OCR engine ${binary} unavailable: ${error.code === "ENOENT" ? "not installed" : error.message}`).pipe(
        Effect.as(false)
      )
    )
  )

/** An image's file on disk: tesseract reads files, so an image known only as bytes is written to a temporary one. */
const onDisk = (source: Source, tempDir: Effect.Effect<string, ExtractionFailed>) => {
  if (source._tag === "File") return Effect.succeed({ path: source.path, temporary: false })
  if (source.path !== undefined) return Effect.succeed({ path: source.path, temporary: false })
  const { bytes } = source
  return Effect.gen(function* () {
    const file = tempPath(yield* tempDir)
    yield* Effect.tryPromise({ try: () => writeFile(file, bytes), catch: failedTo("cannot write the image for OCR") })
    return { path: file, temporary: true }
  })
}

/**
 * Images: text by OCR with the tesseract binary when OCR is on. With OCR off an image is indexed with its
 * metadata only, as the reference does; with OCR on and no engine the error field says why there is no text.
 */
export const ocrParser =
  (binary: string, installed: Effect.Effect<boolean>): Parser =>
  (source, context) =>
    Effect.gen(function* () {
      if (!context.options.ocr) return { text: "" }
      if (!(yield* installed)) return yield* new ExtractionFailed({ reason: `OCR not available: the ${binary} binary is not installed` })
      const language = parseLanguage(context.options.language ?? "eng")?.iso6392 ?? "eng"
      return yield* Effect.acquireUseRelease(
        onDisk(source, context.tempDir),
        (image) =>
          run(binary, [image.path, "stdout", "-l", language], context.limits.parseTimeoutMillis).pipe(
            Effect.map((text) => ({ text })),
            Effect.mapError(failedTo("OCR failed"))
          ),
        (image) => (image.temporary ? removeFile(image.path) : Effect.void)
      )
    })
