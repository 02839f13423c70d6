import { Effect } from "effect"
import { mime } from "./ContentType.ts"
import type { ParseContext, Parsed, Parser } from "./Document.ts"
import { ExtractionFailed, failedTo } from "./ExtractErrors.ts"
import { bytesSource, openStream } from "./Source.ts"

const divider = Buffer.from("From ")
const newline = Buffer.from("\n")
// Tika's MboxParser stops a message at 50 MB; the rest of it is dropped.
const maxMessageBytes = 50_000_000
// A line longer than this is cut, so a file without line breaks cannot fill the memory.
const maxLineBytes = 1024 ** 2

/**
 * Tika reads mailboxes as windows-1252 and writes each message back in it: the five bytes that charset
 * leaves undefined come back as '?'. Doing the same keeps message ids equal to the reference's.
 */
const asTikaRewrites = (line: Buffer) => {
  const copy = Buffer.from(line)
  for (let i = 0; i < copy.byteLength; i++) {
    const byte = copy[i]
    if (byte === 0x81 || byte === 0x8d || byte === 0x8f || byte === 0x90 || byte === 0x9d) copy[i] = 0x3f
  }
  return copy
}

/**
 * A mailbox (.mbox): each message, from one `From ` line to the next, is an embedded email. The file is
 * read as a stream, so only one message is in memory at a time. As in Tika, the `From ` line is not part
 * of the message and lines end with LF, which is what the messages' ids are computed over.
 */
export const extractMbox: Parser = (source, context) =>
  Effect.acquireUseRelease(
    Effect.sync(() => openStream(source)),
    (stream) => readMessages(stream[Symbol.asyncIterator](), context),
    // Stopped early (a limit, an interruption), the file is closed rather than left open until collected.
    (stream) => Effect.sync(() => stream.destroy())
  )

const readMessages = (iterator: AsyncIterator<unknown>, context: ParseContext) =>
  Effect.gen(function* () {
    let message: Array<Buffer> = []
    let messageBytes = 0
    let inMessage = false
    let rest = Buffer.alloc(0)

    const finishMessage = Effect.suspend(() => {
      if (!inMessage) return Effect.void
      const bytes = Buffer.concat(message)
      message = []
      messageBytes = 0
      context.budget.entries++
      if (context.budget.entries > context.limits.maxEntries)
        return Effect.fail(new ExtractionFailed({ reason: `more than ${context.limits.maxEntries} embedded documents` }))
      return context.embed({ source: bytesSource(bytes), contentType: mime.email })
    })
    const line = (bytes: Buffer) =>
      Effect.gen(function* () {
        const content = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes
        if (content.subarray(0, divider.byteLength).equals(divider)) {
          yield* finishMessage
          inMessage = true
        } else if (inMessage && messageBytes < maxMessageBytes) {
          message.push(asTikaRewrites(content), newline)
          messageBytes += content.byteLength + 1
        }
      })

    for (;;) {
      const next = yield* Effect.tryPromise({ try: () => iterator.next(), catch: failedTo("cannot read the mailbox") })
      if (next.done === true) break
      const chunk = Buffer.concat([rest, next.value as Buffer])
      let start = 0
      for (let end = chunk.indexOf(0x0a, start); end >= 0; end = chunk.indexOf(0x0a, start)) {
        yield* line(chunk.subarray(start, end))
        start = end + 1
      }
      rest = Buffer.from(chunk.subarray(start))
      if (rest.byteLength > maxLineBytes) {
        yield* line(rest)
        rest = Buffer.alloc(0)
      }
    }
    if (rest.byteLength > 0) yield* line(rest)
    yield* finishMessage
    return { text: "" } satisfies Parsed
  })
