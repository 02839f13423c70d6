/**
 * Settings every database session of Quarry starts with.
 * - `random_page_cost` for data read from memory or SSD, where every deployment measured keeps it. With PostgreSQL's
 *   default (4, for spinning disks) the planner answered a common word with a sequential scan that detoasts every
 *   document's tsvector to test `@@`: the client's search for "function" over 18,176 real documents took 69 ms on the
 *   server and 76 ms embedded, where the GIN bitmap, which reads only the 4,865 matches, takes 35 and 30 ms.
 * - `work_mem` large enough for a search's matches to stay in memory: a search keeps every match's place and scores
 *   (about 150 bytes each) and reads them four or five times, and at the default 4 MB a word in 35,025 of 100,000
 *   documents wrote them to a temporary file and read it back each time (2,156 blocks).
 */
const sessionSettings: ReadonlyArray<readonly [name: string, value: string]> = [
  ["random_page_cost", "1.1"],
  ["work_mem", "32MB"]
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
