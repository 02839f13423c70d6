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
