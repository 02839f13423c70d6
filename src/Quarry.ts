import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { BuildInfo } from "./config/BuildInfo.ts"
import { Settings, type SettingsShape } from "./config/Settings.ts"
import { BatchDownloads } from "./domain/batch-download/BatchDownloads.ts"
import { BatchSearches } from "./domain/batch-search/BatchSearches.ts"
import { BatchSearchRepo } from "./domain/batch-search/BatchSearchRepo.ts"
import { ProjectRepo } from "./domain/project/ProjectRepo.ts"
import { Deliverables } from "./domain/plugin/Deliverables.ts"
import { Health } from "./domain/status/Health.ts"
import { indexingKindsLayer, jobKindsLayer } from "./engine/kinds/index.ts"
import { engineLayer } from "./engine/Layer.ts"
import { NerPool } from "./ner/NerPool.ts"
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
import { documentsLayer, organisationLayer, reviewBridgeLayer } from "./DocumentLayers.ts"
import { migratedDatabase, usersLayer } from "./SharedLayers.ts"

/** The authenticator of the mode, with the Users service and the sign-in throttle it checks passwords with (handlers use them too). */
const authenticatorLayer = (settings: SettingsShape) => {
  const authenticator: Effect.Effect<AuthenticatorShape, never, Users | SignInThrottle | SqlClient.SqlClient> =
    settings.mode === "SERVER" ? makeServerAuthenticator(settings) : makeLocalAuthenticator(settings)
  return Layer.effect(Authenticator, authenticator).pipe(
    Layer.provideMerge(Layer.effect(SignInThrottle, makeSignInThrottle(settings))),
    Layer.provideMerge(usersLayer)
  )
}

/** Batch searches, and the repository their task kind writes to. */
const batchSearchLayer = BatchSearches.Default.pipe(Layer.provideMerge(BatchSearchRepo.Default), Layer.provide(ProjectRepo.Default))

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
