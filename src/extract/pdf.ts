import { Effect } from "effect"
import { extractText, getMeta, getResolvedPDFJS } from "unpdf"
import type { Parser } from "./Document.ts"
import { describe, ExtractionFailed } from "./ExtractErrors.ts"
import { documentMetadata } from "./Metadata.ts"
import { readAll } from "./Source.ts"

const pdfFailure = (cause: unknown) =>
  new ExtractionFailed({
    reason:
      cause instanceof Error && cause.name === "PasswordException"
        ? "encrypted PDF: a password is needed to read it"
        : `corrupt or unreadable PDF: ${describe(cause)}`
  })

/**
 * pdf.js's own getDocument with the options unpdf's getDocumentProxy gives it here: that helper first resolves
 * pdfjs-dist's font files on every call, which fails (pdf.js comes bundled in unpdf) at ~0.3 ms of CPU a PDF.
 * pdf.js takes ownership of the buffer it is given, so it gets a copy.
 */
const openPdf = (bytes: Uint8Array) =>
  Effect.tryPromise({
    try: async () =>
      (await getResolvedPDFJS()).getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: true, verbosity: 0 })
        .promise,
    catch: pdfFailure
  })

const text = (value: unknown) => (typeof value === "string" ? value : undefined)
const date = (value: unknown) => (value instanceof Date ? value : undefined)

/** PDF text page by page (pages separated by a blank line) and the document information dictionary. */
export const extractPdf: Parser = (source, context) =>
  Effect.gen(function* () {
    const bytes = yield* readAll(source, context.limits.maxFileBytes)
    return yield* Effect.acquireUseRelease(
      openPdf(bytes),
      (pdf) =>
        Effect.tryPromise({
          try: async () => {
            const pages = await extractText(pdf, { mergePages: false })
            const { info } = await getMeta(pdf, { parseDates: true })
            const metadata = documentMetadata({
              title: text(info["Title"]),
              author: text(info["Author"]),
              subject: text(info["Subject"]),
              keywords: text(info["Keywords"]),
              created: date(info["CreationDate"]),
              modified: date(info["ModDate"]),
              pages: pages.totalPages
            })
            const producer = text(info["Producer"])
            const creatorTool = text(info["Creator"])
            if (producer !== undefined) metadata["pdf:producer"] = producer
            if (creatorTool !== undefined) metadata["xmp:CreatorTool"] = creatorTool
            if (typeof info["PDFFormatVersion"] === "string") metadata["pdf:PDFVersion"] = info["PDFFormatVersion"]
            return { text: pages.text.join("\n\n"), metadata }
          },
          catch: pdfFailure
        }),
      (pdf) => Effect.promise(() => pdf.destroy())
    )
  })
