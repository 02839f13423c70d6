/**
 * Load generator run in its own process so it does not share the event loop of the server under test:
 * `node --import tsx bench/_load.ts <url> <seconds> <connections> [cookie]` prints one JSON line of figures.
 */
import autocannon from "autocannon"

const [url = "", seconds = "5", connections = "50", cookie] = process.argv.slice(2)
const result = await autocannon({
  url,
  duration: Number(seconds),
  connections: Number(connections),
  headers: cookie === undefined ? {} : { cookie }
})
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors
  })}\n`
)
