/**
 * Settings every database session of Quarry starts with.
 * - `random_page_cost` for data read from memory or SSD, where every deployment measured keeps it. With PostgreSQL's
 *   default (4, for spinning disks) the planner answered a common word with a sequential scan that detoasts every
 *   document's tsvector to test `@@`: the client's search for "function" over 18,176 real documents took 69 ms on the
 *   server and 76 ms embedded, where the GIN bitmap, which reads only the 4,865 matches, takes 35 and 30 ms.
 * - `work_mem` large enough for a search's matches to stay in memory: a search keeps every match's place and scores
 *   (about 150 bytes each) and reads them four or five times, and at the default 4 MB a word in 35,025 of 100,000
 *   documents wrote them to a temporary file and read it back each time (2,156 blocks).
 * - `jit` off: a search's statement is planned and run once, so compiling its expressions to machine code never pays
 *   back. A common word's statement over 100,000 documents is estimated at about 60,000, under the threshold; at ten
 *   times the documents its estimate passes the thresholds of inlining and optimisation (500,000), and compiling
 *   took 1.3–1.8 s of a statement that runs in 0.2 s (the same statement at 100,000 with the thresholds divided by ten).
 */
const sessionSettings: ReadonlyArray<readonly [name: string, value: string]> = [
  ["random_page_cost", "1.1"],
  ["work_mem", "32MB"],
  ["jit", "off"]
]

/**
 * A server URL with the settings as its connection's startup options, ahead of any the URL has, so that a
 * deployment's own `options` still win. A URL the WHATWG parser cannot read is left as it is.
 */
export const withSessionSettings = (url: string) => {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  const ours = sessionSettings.map(([name, value]) => `-c ${name}=${value}`).join(" ")
  const own = parsed.searchParams.get("options")
  parsed.searchParams.set("options", own === null ? ours : `${ours} ${own}`)
  return parsed.toString()
}

/** The same settings for the embedded database's one session. */
export const sessionSettingStatements = sessionSettings.map(([name, value]) => `SET ${name} = '${value}'`).join("; ")
