/**
 * Layers that the server and the `user` commands share, apart from Quarry.ts so that `quarry user` loads neither the
 * HTTP server nor the document index (seconds of each CLI run's start-up).
 */
import { Layer } from "effect"
import type { SettingsShape } from "./config/Settings.ts"
import { databaseLayer } from "./db/Database.ts"
import { runMigrations } from "./db/Migrator.ts"
import { UserRepo } from "./domain/user/UserRepo.ts"
import { Users } from "./domain/user/Users.ts"

/** The database with every migration applied, for the server and for CLI commands alike. */
export const migratedDatabase = (settings: SettingsShape) =>
  Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(databaseLayer(settings.dataSourceUrl)))

/** Users and their repository, for the server and the `user` commands. */
export const usersLayer = Users.Default.pipe(Layer.provideMerge(UserRepo.Default))
