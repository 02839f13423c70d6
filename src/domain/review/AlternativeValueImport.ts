import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { parseCsv } from "./Csv.ts"
import { InvalidUpload } from "./ReviewErrors.ts"

const allowed = new Set(["id", "name", "value", "choice_group"])

const refuse = (reason: string) => new InvalidUpload({ reason, field: "csv_file" })

/** Imports `name,value` rows into a choice group in one statement; value defaults to the name. */
export const importAlternativeValues = (choiceGroupId: number, text: string) =>
  Effect.gen(function* () {
    const [header, ...lines] = parseCsv(text)
    const names = (header ?? []).map((name) => name.trim())
    const unknown = names.filter((name) => !allowed.has(name))
    if (unknown.length > 0) return yield* refuse(`Unknown column${unknown.length > 1 ? "s" : ""} in the CSV header: ${unknown.join(", ")}.`)
    if (!names.includes("name")) return yield* refuse("The CSV file needs a name column.")
    const rows: Array<{ name: string; value: string }> = []
    for (const [index, line] of lines.entries()) {
      if (line.length === 1 && line[0] === "") continue
      if (line.length !== names.length) return yield* refuse(`Row ${index + 2} has ${line.length} values for ${names.length} columns.`)
      const name = line[names.indexOf("name")]!
      const value = names.includes("value") && line[names.indexOf("value")] !== "" ? line[names.indexOf("value")]! : name
      if (name === "" || name.length > 100 || value.length > 100)
        return yield* refuse(`Row ${index + 2}: name and value need 1 to 100 characters.`)
      rows.push({ name, value })
    }
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      INSERT INTO review_alternative_values (choice_group_id, name, value)
      SELECT ${choiceGroupId}, u.name, u.value FROM unnest(${rows.map((row) => row.name)}::text[], ${rows.map((row) => row.value)}::text[]) AS u (name, value)`
    return { created: rows.length }
  }).pipe(dieOnSqlError)
