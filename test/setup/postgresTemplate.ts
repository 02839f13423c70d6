import { Effect, Layer } from "effect"
import type { TestProject } from "vitest/node"
import { databaseLayer } from "../../src/db/Database.ts"
import { runMigrations } from "../../src/db/Migrator.ts"
import { migratedPostgresTemplate, postgresAvailable } from "../helpers/databases.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** A database of this run with every migration applied, which test databases are copied from; "" without a server. */
    postgresTemplate: string
  }
}

/**
 * Vitest global setup: migrating each test database on the server took about a second, copying a migrated one takes a
 * third of that. The copy is made once a run, and dropped after it.
 */
export default async function postgresTemplate({ provide }: TestProject) {
  if (!postgresAvailable) {
    provide("postgresTemplate", "")
    return
  }
  const { name, url, drop } = await Effect.runPromise(migratedPostgresTemplate)
  await Effect.runPromise(Effect.scoped(Layer.build(Layer.effectDiscard(runMigrations()).pipe(Layer.provide(databaseLayer(url))))))
  provide("postgresTemplate", name)
  return () => Effect.runPromise(drop)
}
