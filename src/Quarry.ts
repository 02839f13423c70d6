import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { BuildInfo } from "./config/BuildInfo.ts"
import { Settings, type SettingsShape } from "./config/Settings.ts"
import { databaseLayer } from "./db/Database.ts"
import { runMigrations } from "./db/Migrator.ts"
import { Documents } from "./domain/document/Documents.ts"
import { Deliverables } from "./domain/plugin/Deliverables.ts"
import { Health } from "./domain/status/Health.ts"
import { ingestionKindsLayer } from "./engine/kinds/index.ts"
import { engineLayer } from "./engine/Layer.ts"
import { Extractor } from "./extract/Extractor.ts"
import { UserRepo } from "./domain/user/UserRepo.ts"
import { Users } from "./domain/user/Users.ts"
import { Authenticator, type AuthenticatorShape, makeLocalAuthenticator } from "./http/middleware/Auth.ts"
import { makeServerAuthenticator } from "./http/middleware/ServerAuth.ts"
import { allRoutes } from "./http/routes.ts"
import { HttpServerInfo, serveHttp } from "./http/Server.ts"
import { RpcEndpoint } from "./rpc/Server.ts"
import { PostgresDocumentIndex } from "./search/postgres/PostgresDocumentIndex.ts"

/** The database with every migration applied, for the server and for CLI commands alike. */
export const migratedDatabase = (settings: SettingsShape) =>
  Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(databaseLayer(settings.dataSourceUrl)))

/** Users and their repository, for the server and the `user` commands. */
export const usersLayer = Users.Default.pipe(Layer.provideMerge(UserRepo.Default))

/** The authenticator of the mode, with the Users service it checks credentials against (handlers use it too). */
const authenticatorLayer = (settings: SettingsShape) => {
  const authenticator: Effect.Effect<AuthenticatorShape, never, Users | SqlClient.SqlClient> =
    settings.mode === "SERVER" ? makeServerAuthenticator(settings) : makeLocalAuthenticator(settings)
  return Layer.effect(Authenticator, authenticator).pipe(Layer.provideMerge(usersLayer))
}

/**
 * The document index and the reads of the documents endpoints. PostgreSQL full-text search is the index when
 * elasticsearchAddress is unset, and for now also when it is set: the Elasticsearch implementation comes later.
 */
const documentsLayer = Documents.Default.pipe(Layer.provideMerge(PostgresDocumentIndex))

/** The whole service for one set of settings: database, services, and the HTTP server listening. */
export const quarryLayer = (settings: SettingsShape) => {
  const services = Layer.mergeAll(Health.Default, BuildInfo.Default, Deliverables.Default, documentsLayer, authenticatorLayer(settings), engineLayer({ parallelism: settings.parallelism, kindConcurrency: settings.taskConcurrency }))
  return Layer.scoped(HttpServerInfo, Effect.flatMap(RpcEndpoint, (rpc) => serveHttp(allRoutes, [rpc.mount]))).pipe(
    Layer.provideMerge(RpcEndpoint.Default),
    // Scan and index tasks run in the engine, extracting with the Extractor and writing to the document index.
    Layer.provideMerge(ingestionKindsLayer.pipe(Layer.provide(Extractor.Default))),
    Layer.provideMerge(services),
    Layer.provideMerge(migratedDatabase(settings)),
    Layer.provideMerge(Layer.succeed(Settings, settings))
  )
}

export const runServer = (settings: SettingsShape) => Layer.launch(quarryLayer(settings)).pipe(Effect.asVoid)
