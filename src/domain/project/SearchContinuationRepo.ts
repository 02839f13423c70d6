import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"

/** An async search is kept five days by default, longer than any scroll (one day at most). */
const keptFor = "5 days"

/** Ids are bearer secrets of the backend: only their digest is stored. */
const digestOf = (id: string) => createHash("sha256").update(id, "utf8").digest("hex")

/** SQL of the continuations the search proxy gave out, and the indices each continues. */
export class SearchContinuationRepo extends Effect.Service<SearchContinuationRepo>()("quarry/SearchContinuationRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const remember = Effect.fn("SearchContinuationRepo.remember")(function* (id: string, indices: ReadonlyArray<string>) {
      // Expired rows go in the same statement.
      yield* sql`
        WITH expired AS (DELETE FROM search_continuations WHERE expires_at < now())
        INSERT INTO search_continuations (id_digest, indices, expires_at)
        VALUES (${digestOf(id)}, ${indices}::text[], now() + ${keptFor}::interval)
        ON CONFLICT (id_digest) DO UPDATE SET expires_at = excluded.expires_at`
    })

    /** The indices of the search a continuation id belongs to; None for an id the proxy never gave out. */
    const indicesOf = Effect.fn("SearchContinuationRepo.indicesOf")(function* (id: string) {
      const rows = yield* sql<{ indices: ReadonlyArray<string> }>`
        SELECT indices FROM search_continuations WHERE id_digest = ${digestOf(id)} AND expires_at >= now()`
      return Option.map(Arr.head(rows), (row) => row.indices)
    })

    return dieOnSqlErrors({ remember, indicesOf })
  })
}) {}
