/**
 * The search-scale benchmark's bounded searches: a real Quarry HTTP server runs expensive searches, then 200 distinct
 * searches at once while `/api/status` is sampled, to show that no search holds the server past its bound.
 */
import { Effect } from "effect"
import { isolatedHome, startQuarry } from "../test/cli/quarryProcess.ts"
import { TestDatabaseUrl } from "../test/engine/helpers.ts"
import { percentile, round, searchBody } from "./_clientSearch.ts"
import type { QuerySet } from "./_scaleQueries.ts"
import { sampleStatusApart } from "./_statusSampler.ts"

interface Answer {
  readonly status: number | "noAnswer"
  readonly ms: number
  /** Matching documents, to tell a search that did its work from one that found nothing. */
  readonly hits?: number
  readonly errorType?: string
}

const postSearch = (url: string, project: string, body: unknown) =>
  Effect.promise(async (): Promise<Answer> => {
    const begin = performance.now()
    try {
      const response = await fetch(`${url}/api/index/search/${project}/_search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        // Far past any deadline: a search still running then is reported as unanswered.
        signal: AbortSignal.timeout(60_000)
      })
      const answer = (await response.json()) as { hits?: { total: { value: number } }; error?: { type?: string } }
      const ms = round(performance.now() - begin)
      if (answer.hits !== undefined) return { status: response.status, ms, hits: answer.hits.total.value }
      return answer.error?.type === undefined
        ? { status: response.status, ms }
        : { status: response.status, ms, errorType: answer.error.type }
    } catch {
      return { status: "noAnswer", ms: round(performance.now() - begin) }
    }
  })

export const bounded = (project: string, set: QuerySet) =>
  Effect.gen(function* () {
    const url = yield* TestDatabaseUrl
    const home = yield* isolatedHome
    const server = yield* startQuarry(
      ["serve", "--tcpListenPort", "0", "--dataSourceUrl", url, "--dataDir", home, "--defaultProject", project],
      home
    )
    const sampler = yield* sampleStatusApart(server.url)
    const [word, ...others] = set.mediumWords.filter((candidate) => candidate.length >= 5)
    const target = word ?? set.mediumWords[0]!
    const expensive: Record<string, object> = {
      fuzzy: { size: 25, track_total_hits: true, query: { fuzzy: { content: { value: target, fuzziness: 2 } } } },
      eightFuzzyTerms: searchBody([target, ...others.slice(0, 7)].map((term) => `${term}~2`).join(" ")),
      leadingWildcard: searchBody(`*${target.slice(-3)}`),
      prefix: searchBody(`${target.slice(0, 3)}*`),
      regexp: { size: 25, track_total_hits: true, query: { regexp: { content: { value: `${target.slice(0, 2)}.*${target.slice(-2)}` } } } }
    }
    // As clients send them (the engine's default timeout applies), then with ES's `timeout` set to the 1 s bound.
    const searches: Record<string, Answer> = {}
    for (const [name, body] of Object.entries(expensive)) {
      searches[name] = yield* postSearch(server.url, project, body)
      searches[`${name}Timeout1s`] = yield* postSearch(server.url, project, { ...body, timeout: "1s" })
      process.stdout.write(
        `bounded ${name}: ${JSON.stringify(searches[name])}; with timeout 1s: ${JSON.stringify(searches[`${name}Timeout1s`])}\n`
      )
    }
    const loadWords = set.mediumWords.slice(0, 200)
    const started = performance.now()
    const answers = yield* Effect.forEach(loadWords, (term) => postSearch(server.url, project, searchBody(term)), {
      concurrency: "unbounded"
    })
    const loadSeconds = round((performance.now() - started) / 1_000)
    const samples = yield* sampler.stop
    const latencies = [...samples.latencies]
    const statuses: Record<string, number> = {}
    for (const answer of answers) statuses[String(answer.status)] = (statuses[String(answer.status)] ?? 0) + 1
    latencies.sort((a, b) => a - b)
    const figures = {
      searches,
      concurrentSearches: loadWords.length,
      concurrentStatuses: statuses,
      concurrentUnexpected: answers.filter((answer) => ![200, 429, 503].includes(answer.status as number)).length,
      concurrentSeconds: loadSeconds,
      concurrentP50Ms: round(
        percentile(
          answers.map((answer) => answer.ms).sort((a, b) => a - b),
          50
        )
      ),
      statusSamples: latencies.length,
      statusP50Ms: round(percentile(latencies, 50)),
      statusP99Ms: round(percentile(latencies, 99)),
      statusMaxMs: round(latencies.at(-1) ?? 0),
      statusFailures: samples.failures
    }
    process.stdout.write(
      `bounded: ${loadWords.length} concurrent searches ${JSON.stringify(statuses)} in ${loadSeconds} s; /api/status p99 ${figures.statusP99Ms} ms over ${latencies.length} samples\n`
    )
    return figures
  }).pipe(Effect.scoped)
