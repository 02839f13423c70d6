import { Effect, Layer } from "effect"
import { Settings, type SettingsShape } from "./config/Settings.ts"
import { databaseLayer } from "./db/Database.ts"
import { runMigrations } from "./db/Migrator.ts"
import { Health } from "./domain/status/Health.ts"
import { Authenticator, makeLocalAuthenticator } from "./http/middleware/Auth.ts"
import { allRoutes } from "./http/routes.ts"
import { HttpServerInfo, serveHttp } from "./http/Server.ts"

/** The database with every migration applied, for the server and for CLI commands alike. */
export const migratedDatabase = (settings: SettingsShape) =>
  Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(databaseLayer(settings.dataSourceUrl)))

const authenticatorLayer = (settings: SettingsShape) => Layer.effect(Authenticator, makeLocalAuthenticator(settings))

/** The whole service for one set of settings: database, services, and the HTTP server listening. */
export const quarryLayer = (settings: SettingsShape) => {
  const services = Layer.mergeAll(Health.Default, authenticatorLayer(settings))
  return Layer.scoped(HttpServerInfo, serveHttp(allRoutes)).pipe(
    Layer.provideMerge(services),
    Layer.provideMerge(migratedDatabase(settings)),
    Layer.provideMerge(Layer.succeed(Settings, settings))
  )
}

export const runServer = (settings: SettingsShape) => Layer.launch(quarryLayer(settings)).pipe(Effect.asVoid)
