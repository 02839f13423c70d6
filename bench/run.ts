/**
 * `npm run bench -- <name>` runs bench/<name>.ts. Each benchmark measures its baseline in the same run and prints,
 * as its last line, `BENCH <name> <json>` with its figures, the baseline's, and `ratio` (higher is better).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const available = fs
  .readdirSync(here)
  .filter((file) => file.endsWith(".ts") && !["run.ts", "report.ts"].includes(file) && !file.startsWith("_"))
  .map((file) => file.slice(0, -3))

const names = process.argv.slice(2).filter((arg) => !arg.startsWith("-"))
const unknown = names.filter((name) => !available.includes(name))
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark ${unknown.join(", ")}; available: ${available.join(", ")}\n`)
  process.exit(2)
}
for (const name of names.length > 0 ? names : available) {
  const module = (await import(pathToFileURL(path.join(here, `${name}.ts`)).href)) as { run: () => Promise<void> }
  await module.run()
}
process.exit(0)
