/**
 * `npm run bench -- http`: requests per second of `GET /api/status` on Quarry (embedded database, LOCAL mode)
 * against a bare node:http server answering the same JSON, both in this process, loaded from a child process.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, ManagedRuntime } from "effect"
import { resolveSettings } from "../src/config/Settings.ts"
import { HttpServerInfo } from "../src/http/Server.ts"
import { quarryLayer } from "../src/Quarry.ts"
import { type LoadFigures, measureLoad } from "./_load-runner.ts"
import { report } from "./report.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 3)
/** Rounds alternate between the two servers so that a change in machine load hits both alike. */
const rounds = 3
const connections = 50
const cookie = `_ds_session_id={"login":"local","roles":["local"],"sessionId":"0123456789abcdef","redirectAfterLogin":"/"}`

const startBareServer = async (body: string) => {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json;charset=UTF-8", "Content-Length": Buffer.byteLength(body) })
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

const startQuarry = async () => {
  const settings = await Effect.runPromise(
    resolveSettings({
      env: {},
      cli: { tcpListenPort: "0", dataSourceUrl: "pglite:memory", dataDir: os.tmpdir() },
      defaultSettingsFile: path.join(os.tmpdir(), "quarry-bench-no-settings.properties")
    })
  )
  const runtime = ManagedRuntime.make(quarryLayer(settings))
  const info = await runtime.runPromise(HttpServerInfo)
  return { url: info.url, close: () => runtime.dispose() }
}

/** The round with the median throughput. */
const median = (figures: ReadonlyArray<LoadFigures>) =>
  [...figures].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(figures.length / 2)]!

export const run = async () => {
  const quarry = await startQuarry()
  const statusBody = await (await fetch(`${quarry.url}/api/status`, { headers: { cookie } })).text()
  const bare = await startBareServer(statusBody)
  // Warm both servers (JIT, connection pools) before measuring.
  await measureLoad(`${bare.url}/api/status`, 1, connections)
  await measureLoad(`${quarry.url}/api/status`, 1, connections, cookie)
  const baselineRounds: Array<LoadFigures> = []
  const ourRounds: Array<LoadFigures> = []
  for (let round = 0; round < rounds; round++) {
    baselineRounds.push(await measureLoad(`${bare.url}/api/status`, seconds, connections))
    ourRounds.push(await measureLoad(`${quarry.url}/api/status`, seconds, connections, cookie))
  }
  const baseline = median(baselineRounds)
  const ours = median(ourRounds)
  bare.close()
  await quarry.close()
  if (ours.non2xx + ours.errors > 0) process.stderr.write(`quarry answered ${ours.non2xx} non-2xx and ${ours.errors} errors\n`)
  report("http", {
    endpoint: "GET /api/status",
    connections,
    seconds,
    rounds,
    requestsPerSecond: ours.requestsPerSecond,
    p50Ms: ours.p50Ms,
    p99Ms: ours.p99Ms,
    baselineRequestsPerSecond: baseline.requestsPerSecond,
    baselineP50Ms: baseline.p50Ms,
    baselineP99Ms: baseline.p99Ms,
    ratio: Number((ours.requestsPerSecond / baseline.requestsPerSecond).toFixed(3))
  })
}
