import type { ExtractedDocument } from "../extract/Document.ts"
import type { IndexedDocument } from "./DocumentIndex.ts"

/** The documents of an extracted tree, parents before their children, as the index stores them. */
export const indexedDocuments = (root: ExtractedDocument): ReadonlyArray<IndexedDocument> => {
  const documents: Array<IndexedDocument> = []
  const visit = (document: ExtractedDocument) => {
    const { children, ...fields } = document
    documents.push({ ...fields, nerTags: [], status: "INDEXED" })
    children.forEach(visit)
  }
  visit(root)
  return documents
}

/** The first document of each id: a batch may carry the same file twice (two copies scanned together). */
export const firstOfEachId = (documents: ReadonlyArray<IndexedDocument>) => {
  const first = new Map<string, IndexedDocument>()
  for (const document of documents) if (!first.has(document.id)) first.set(document.id, document)
  return first
}
