import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { BuildInfo } from "./config/BuildInfo.ts"
import { Settings, type SettingsShape } from "./config/Settings.ts"
import { databaseLayer } from "./db/Database.ts"
import { runMigrations } from "./db/Migrator.ts"
import { BatchDownloads } from "./domain/batch-download/BatchDownloads.ts"
import { BatchSearches } from "./domain/batch-search/BatchSearches.ts"
import { BatchSearchRepo } from "./domain/batch-search/BatchSearchRepo.ts"
import { Documents } from "./domain/document/Documents.ts"
import { DocumentMarks } from "./domain/document/DocumentMarks.ts"
import { DocumentMarksRepo } from "./domain/document/DocumentMarksRepo.ts"
import { HistoryRepo } from "./domain/history/HistoryRepo.ts"
import { UserHistory } from "./domain/history/UserHistory.ts"
import { NoteRepo } from "./domain/note/NoteRepo.ts"
import { Notes } from "./domain/note/Notes.ts"
import { ProjectRepo } from "./domain/project/ProjectRepo.ts"
import { Projects } from "./domain/project/Projects.ts"
import { ReviewBridgeRepo } from "./domain/review-bridge/ReviewBridgeRepo.ts"
import { ReviewBridges } from "./domain/review-bridge/ReviewBridges.ts"
import { Deliverables } from "./domain/plugin/Deliverables.ts"
import { Health } from "./domain/status/Health.ts"
import { indexingKindsLayer, jobKindsLayer } from "./engine/kinds/index.ts"
import { engineLayer } from "./engine/Layer.ts"
import { NerPool } from "./ner/NerPool.ts"
import { Extractor } from "./extract/Extractor.ts"
import { UserRepo } from "./domain/user/UserRepo.ts"
import { signInLocalUser } from "./domain/user/SignIns.ts"
import { Users } from "./domain/user/Users.ts"
import { makeLocalAuthenticator } from "./http/middleware/Auth.ts"
import { Authenticator, type AuthenticatorShape } from "./transport/Authentication.ts"
import { makeServerAuthenticator } from "./http/middleware/ServerAuth.ts"
import { makeSignInThrottle, SignInThrottle } from "./http/middleware/SignInThrottle.ts"
import { webRootRoute } from "./http/legacy/RootHttp.ts"
import { allRoutes } from "./http/routes.ts"
import { HttpServerInfo, serveHttp } from "./http/Server.ts"
import { RpcEndpoint } from "./rpc/Server.ts"
import { elasticsearchLayers } from "./search/elasticsearch/Layer.ts"
import { PostgresDocumentIndex } from "./search/postgres/PostgresDocumentIndex.ts"
import { PostgresSearchBackend } from "./search/postgres/PostgresSearchBackend.ts"

/** The database with every migration applied, for the server and for CLI commands alike. */
export const migratedDatabase = (settings: SettingsShape) =>
  Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(databaseLayer(settings.dataSourceUrl)))

/** Users and their repository, for the server and the `user` commands. */
export const usersLayer = Users.Default.pipe(Layer.provideMerge(UserRepo.Default))

/** The authenticator of the mode, with the Users service and the sign-in throttle it checks passwords with (handlers use them too). */
const authenticatorLayer = (settings: SettingsShape) => {
  const authenticator: Effect.Effect<AuthenticatorShape, never, Users | SignInThrottle | SqlClient.SqlClient> =
    settings.mode === "SERVER" ? makeServerAuthenticator(settings) : makeLocalAuthenticator(settings)
  return Layer.effect(Authenticator, authenticator).pipe(
    Layer.provideMerge(Layer.effect(SignInThrottle, makeSignInThrottle(settings))),
    Layer.provideMerge(usersLayer)
  )
}

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

const documentsLayer = (settings: SettingsShape) =>
  settings.elasticsearchAddress === undefined ? postgresDocumentsLayer : elasticsearchDocumentsLayer(settings.elasticsearchAddress)

/** Projects, and what users attach to documents and projects: stars, tags, recommendations, notes, history. */
const organisationLayer = (documents: ReturnType<typeof documentsLayer>) =>
  Layer.mergeAll(
    DocumentMarks.Default.pipe(Layer.provide(DocumentMarksRepo.Default)),
    Notes.Default.pipe(Layer.provide(NoteRepo.Default)),
    UserHistory.Default.pipe(Layer.provide(HistoryRepo.Default))
  ).pipe(Layer.provideMerge(Projects.Default.pipe(Layer.provide(ProjectRepo.Default))), Layer.provide(documents))

/** Batch searches, and the repository their task kind writes to. */
const batchSearchLayer = BatchSearches.Default.pipe(Layer.provideMerge(BatchSearchRepo.Default), Layer.provide(ProjectRepo.Default))

/** Batch-search hits sent to review tasks, and reviewed documents tagged back in the index. */
const reviewBridgeLayer = ReviewBridges.Default.pipe(Layer.provide(ReviewBridgeRepo.Default))

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

/** Batch downloads and the cleaner of expired archives. */
const batchDownloadLayer = BatchDownloads.Default.pipe(Layer.provide(ProjectRepo.Default))

/** The whole service for one set of settings: database, services, and the HTTP server listening. */
export const quarryLayer = (settings: SettingsShape) => {
  const documents = documentsLayer(settings)
  const services = Layer.mergeAll(
    Health.Default,
    BuildInfo.Default,
    Deliverables.Default,
    documents,
    organisationLayer(documents),
    authenticatorLayer(settings),
    engineLayer({ parallelism: settings.parallelism, kindConcurrency: settings.taskConcurrency }),
    NerPool.Default
  )
  // A front end in webRoot is served below every API route: its catch-all route comes last.
  const routes = settings.webRoot === undefined ? allRoutes : [...allRoutes, webRootRoute]
  const serve = Effect.flatMap(RpcEndpoint, (rpc) => serveHttp(routes, [rpc.mount]))
  return Layer.scoped(HttpServerInfo, Effect.zipRight(signInLocalUser(settings), serve)).pipe(
    Layer.provideMerge(RpcEndpoint.Default),
    Layer.provideMerge(reviewBridgeLayer),
    // Every task kind runs in the engine, with the services below: the document index, the search backend, NER workers.
    Layer.provideMerge(jobKindsLayer),
    Layer.provideMerge(batchSearchLayer),
    Layer.provideMerge(batchDownloadLayer),
    Layer.provideMerge(services),
    Layer.provideMerge(migratedDatabase(settings)),
    Layer.provideMerge(Layer.succeed(Settings, settings))
  )
}

export const runServer = (settings: SettingsShape) => Layer.launch(quarryLayer(settings)).pipe(Effect.asVoid)

/**
 * What `--mode CLI` needs to scan and index a folder: the database, the engine running scan and index tasks, and the
 * document index, without the HTTP server.
 */
export const indexingLayer = (settings: SettingsShape) =>
  indexingKindsLayer.pipe(
    Layer.provideMerge(
      Layer.merge(documentsLayer(settings), engineLayer({ parallelism: settings.parallelism, kindConcurrency: settings.taskConcurrency }))
    ),
    Layer.provideMerge(migratedDatabase(settings)),
    Layer.provideMerge(Layer.succeed(Settings, settings))
  )
