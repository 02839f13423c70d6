import { createHash } from "node:crypto"
import { createWriteStream } from "node:fs"
import { Readable, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { ReadableStream } from "node:stream/web"
import { Effect } from "effect"
import { DeliverableNotFound, DeliverableRefused, DownloadFailed, DownloadTimedOut } from "./DeliverableErrors.ts"

export interface DownloadLimits {
  readonly maxBytes: number
  readonly timeoutSeconds: number
}

/** What a download came to; the promise below never rejects, so that every case keeps its meaning. */
type Outcome =
  | { readonly _tag: "Saved"; readonly sha256: string; readonly size: number }
  | { readonly _tag: "Status"; readonly status: number }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Unreachable"; readonly reason: string }

/** The most telling message of a fetch failure: undici hides the socket error (ECONNREFUSED…) in `cause`. */
const describe = (error: unknown): string => {
  const cause = error instanceof Error ? error.cause : undefined
  if (cause instanceof Error && cause.message !== "") return cause.message
  return error instanceof Error ? error.message : String(error)
}

/**
 * Streams `url` into `file`, counting and hashing the bytes. The download stops as soon as it passes
 * `maxBytes` (announced by Content-Length or counted), when the time limit passes, or when the caller is
 * interrupted; the partial file is left for the caller to remove with its staging folder.
 */
const fetchToFile = async (url: string, file: string, limits: DownloadLimits, interrupted: AbortSignal): Promise<Outcome> => {
  const timeout = AbortSignal.timeout(limits.timeoutSeconds * 1000)
  const overLimit = new AbortController()
  const signal = AbortSignal.any([interrupted, timeout, overLimit.signal])
  const hash = createHash("sha256")
  let size = 0
  try {
    const response = await fetch(url, { signal, redirect: "follow" })
    if (!response.ok || response.body === null) {
      await response.body?.cancel()
      return { _tag: "Status", status: response.status }
    }
    if (Number(response.headers.get("content-length") ?? 0) > limits.maxBytes) {
      await response.body.cancel()
      return { _tag: "TooLarge" }
    }
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length
        if (size > limits.maxBytes) {
          overLimit.abort()
          done(new Error(`more than ${limits.maxBytes} bytes`))
        } else {
          hash.update(chunk)
          done(null, chunk)
        }
      }
    })
    await pipeline(Readable.fromWeb(response.body as ReadableStream<Uint8Array>), counter, createWriteStream(file, { flags: "wx" }))
    return { _tag: "Saved", sha256: hash.digest("hex"), size }
  } catch (error) {
    if (size > limits.maxBytes) return { _tag: "TooLarge" }
    if (timeout.aborted) return { _tag: "TimedOut" }
    return { _tag: "Unreachable", reason: describe(error) }
  }
}

export type DownloadError = DeliverableNotFound | DownloadFailed | DownloadTimedOut | DeliverableRefused

/**
 * Downloads a deliverable over HTTP(S) into `file` (redirects followed, as release hosts use them), with the
 * size and time limits of the settings. Answers the SHA-256 of what was saved.
 */
export const download = (url: string, file: string, limits: DownloadLimits) =>
  Effect.tryPromise((signal) => fetchToFile(url, file, limits, signal)).pipe(
    Effect.orDie,
    Effect.flatMap((outcome): Effect.Effect<{ readonly sha256: string; readonly size: number }, DownloadError> => {
      switch (outcome._tag) {
        case "Saved":
          return Effect.succeed(outcome)
        case "Status":
          return outcome.status === 404
            ? Effect.fail(new DeliverableNotFound({ reason: `${url} answered 404 Not Found` }))
            : Effect.fail(new DownloadFailed({ url, reason: `the server answered ${outcome.status}` }))
        case "TooLarge":
          return Effect.fail(
            new DeliverableRefused({ url, reason: `larger than the ${limits.maxBytes} bytes allowed (deliverableMaxSize)` })
          )
        case "TimedOut":
          return Effect.fail(new DownloadTimedOut({ url, seconds: limits.timeoutSeconds }))
        case "Unreachable":
          return Effect.fail(new DownloadFailed({ url, reason: outcome.reason }))
      }
    })
  )
