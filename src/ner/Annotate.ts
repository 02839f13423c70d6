/**
 * Running a pipeline over texts of any length. Kept apart from Pipeline.ts, and free of Effect, so that a worker
 * thread (NerWorker.ts) loads only this and the pipelines: loading Effect there took most of its 5 s start.
 */
import type { Annotation, DocumentFields, NerPipeline } from "./Pipeline.ts"

/**
 * Where a piece of `text` from `start` that may end at `end` is cut: after a line break, else after a sentence's
 * end, else after a space, in the second half of the piece, so that a name is not cut in two ("Angela | Merkel").
 */
const cutOf = (text: string, start: number, end: number) => {
  const floor = start + Math.floor((end - start) / 2)
  for (const separator of ["\n", ". ", " "]) {
    const at = text.lastIndexOf(separator, end - separator.length)
    if (at >= floor) return at + separator.length
  }
  return end
}

/** Cuts a text into pieces of at most `size` characters, at a line, sentence or word break when there is one. */
export const chunksOf = (text: string, size: number): ReadonlyArray<{ readonly text: string; readonly start: number }> => {
  const chunks: Array<{ text: string; start: number }> = []
  let start = 0
  while (start < text.length) {
    const limit = Math.min(text.length, start + size)
    const end = limit < text.length ? cutOf(text, start, limit) : limit
    chunks.push({ text: text.slice(start, end), start })
    start = end
  }
  return chunks
}

const annotateChunk = (pipeline: NerPipeline, chunk: { readonly text: string; readonly start: number }) =>
  pipeline.findAnnotations(chunk.text).map((annotation) => ({ ...annotation, offset: annotation.offset + chunk.start }))

/** Runs a pipeline over a text of any length: long texts in pieces, offsets counted from the text's start. */
export const annotate = (pipeline: NerPipeline, text: string): ReadonlyArray<Annotation> =>
  chunksOf(text, pipeline.chunkLength).flatMap((chunk) => annotateChunk(pipeline, chunk))

/** A document's mentions: those of its metadata the pipeline reads, then those of its content. */
export const annotateDocument = (pipeline: NerPipeline, document: DocumentFields): ReadonlyArray<Annotation> => [
  ...(pipeline.findInMetadata?.(document) ?? []),
  ...annotate(pipeline, document.content)
]
