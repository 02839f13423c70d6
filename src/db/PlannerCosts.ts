/**
 * Planner costs for data read from memory or SSD, where every deployment measured keeps it. With PostgreSQL's default
 * random_page_cost (4, for spinning disks) the planner answered a common word with a sequential scan that detoasts
 * every document's tsvector to test `@@`: the client's search for "function" over 18,176 real documents took 69 ms on
 * the server and 76 ms embedded, where the GIN bitmap, which reads only the 4,865 matches, takes 35 and 30 ms.
 */
const plannerCosts: ReadonlyArray<readonly [name: string, value: string]> = [["random_page_cost", "1.1"]]

/**
 * A server URL with the costs as its connection's startup options, ahead of any the URL has, so that a deployment's
 * own `options` still win. A URL the WHATWG parser cannot read is left as it is.
 */
export const withPlannerCosts = (url: string) => {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  const ours = plannerCosts.map(([name, value]) => `-c ${name}=${value}`).join(" ")
  const own = parsed.searchParams.get("options")
  parsed.searchParams.set("options", own === null ? ours : `${ours} ${own}`)
  return parsed.toString()
}

/** The same costs for the embedded database's one session. */
export const plannerCostStatements = plannerCosts.map(([name, value]) => `SET ${name} = ${value}`).join("; ")
