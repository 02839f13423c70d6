/**
 * The document index and what is attached to documents, apart from Quarry.ts so that the `review` commands load
 * neither the HTTP server, the RPC endpoint nor the engine (seconds of each CLI run's start-up).
 */
import { Layer } from "effect"
import { Settings, type SettingsShape } from "./config/Settings.ts"
import { BatchSearchRepo } from "./domain/batch-search/BatchSearchRepo.ts"
import { Documents } from "./domain/document/Documents.ts"
import { DocumentMarks } from "./domain/document/DocumentMarks.ts"
import { DocumentMarksRepo } from "./domain/document/DocumentMarksRepo.ts"
import { HistoryRepo } from "./domain/history/HistoryRepo.ts"
import { UserHistory } from "./domain/history/UserHistory.ts"
import { NoteRepo } from "./domain/note/NoteRepo.ts"
import { Notes } from "./domain/note/Notes.ts"
import { ProjectRepo } from "./domain/project/ProjectRepo.ts"
import { SearchContinuationRepo } from "./domain/project/SearchContinuationRepo.ts"
import { Projects } from "./domain/project/Projects.ts"
import { ReviewBridgeRepo } from "./domain/review-bridge/ReviewBridgeRepo.ts"
import { ReviewBridges } from "./domain/review-bridge/ReviewBridges.ts"
import { Extractor } from "./extract/Extractor.ts"
import { elasticsearchLayers } from "./search/elasticsearch/Layer.ts"
import { PostgresDocumentIndex } from "./search/postgres/PostgresDocumentIndex.ts"
import { PostgresSearchBackend } from "./search/postgres/PostgresSearchBackend.ts"
import { migratedDatabase } from "./SharedLayers.ts"

/**
 * The document index and the reads of the documents endpoints. PostgreSQL full-text search is the index when
 * elasticsearchAddress is unset. The Extractor serves both the index tasks and the sources of embedded documents.
 */
const postgresDocumentsLayer = Documents.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(PostgresDocumentIndex, PostgresSearchBackend, Extractor.Default))
)

/** With elasticsearchAddress set, the cluster holds the index and answers the search proxy. */
const elasticsearchDocumentsLayer = (address: string) =>
  Documents.Default.pipe(Layer.provideMerge(Layer.merge(elasticsearchLayers(address), Extractor.Default)))

export const documentsLayer = (settings: SettingsShape) =>
  settings.elasticsearchAddress === undefined ? postgresDocumentsLayer : elasticsearchDocumentsLayer(settings.elasticsearchAddress)

/** Projects, and what users attach to documents and projects: stars, tags, recommendations, notes, history. */
export const organisationLayer = (documents: ReturnType<typeof documentsLayer>) =>
  Layer.mergeAll(
    DocumentMarks.Default.pipe(Layer.provide(DocumentMarksRepo.Default)),
    Notes.Default.pipe(Layer.provide(NoteRepo.Default)),
    UserHistory.Default.pipe(Layer.provide(HistoryRepo.Default)),
    SearchContinuationRepo.Default
  ).pipe(Layer.provideMerge(Projects.Default.pipe(Layer.provide(ProjectRepo.Default))), Layer.provide(documents))

/** Batch-search hits sent to review tasks, and reviewed documents tagged back in the index. */
export const reviewBridgeLayer = ReviewBridges.Default.pipe(Layer.provide(ReviewBridgeRepo.Default))

/** The review bridge without server or engine, for the `review` commands. */
export const reviewBridgeCommandLayer = (settings: SettingsShape) => {
  const documents = documentsLayer(settings)
  return reviewBridgeLayer.pipe(
    Layer.provideMerge(BatchSearchRepo.Default),
    Layer.provideMerge(organisationLayer(documents)),
    Layer.provideMerge(documents),
    Layer.provideMerge(migratedDatabase(settings)),
    Layer.provideMerge(Layer.succeed(Settings, settings))
  )
}
