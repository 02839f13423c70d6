/**
 * `npm run bench -- index-real`: indexing real documents nobody here wrote (bench/_realCorpus.ts: HTML manuals,
 * PDF manuals, e-mails, plain texts; BENCH_REAL_HTML HTML pages, 6,000 by default, about 12,900 files in all), on the
 * PostgreSQL server and on the embedded database (BENCH_REAL_DATABASES, both by default).
 *
 * Ours: a Quarry server started as `npm start` starts it, the data folder scanned and indexed through
 * `POST /api/task/batchUpdate/index/file`, timed from the submit to the index task DONE. Meanwhile `/api/status` is
 * asked every 20 ms and a one-word search (the client's body, a different word each time) every 100 ms: a server
 * that stops answering while it indexes shows here. The probes cost the index its share of two cores (a common
 * word's search ranks thousands of pages), which the baseline does not pay: the same index is then run again on a
 * fresh database without them, reported as `aloneDocsPerSecond` and `aloneRatio`. The headline `ratio` stays the
 * probed run's.
 *
 * The baseline, in the same run on the same database server: the minimal program doing the same work in one Node
 * process over one connection — walk, read, extract with the libraries Quarry uses for each type (html-to-text
 * with Quarry's options, unpdf, postal-mime), fold, and COPY into one table with a `'simple'` tsvector and its GIN
 * index. The embedded database's socket server does not speak COPY, so there the baseline INSERTs batches.
 *
 * The server run is profiled (`--cpu-prof`, a sampling profiler that costs a few per cent): the time of its main
 * thread is split by where it went (read, detect, extract, language, database client, GC, idle, other).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Fiber, Layer, Schedule } from "effect"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"
import PostalMime from "postal-mime"
import { extractText, getResolvedPDFJS } from "unpdf"
import { databaseLayer } from "../src/db/Database.ts"
import { htmlToText } from "../src/extract/html.ts"
import { indexedPrefix } from "../src/search/postgres/TextIndex.ts"
import { isolatedHome, startQuarry } from "../test/cli/quarryProcess.ts"
import { type DatabaseKind, postgresAvailable, throwawayPostgres } from "../test/helpers/databases.ts"
import { percentile, round, searchBody } from "./_clientSearch.ts"
import { type CorpusFile, realCorpus } from "./_realCorpus.ts"
import { report } from "./report.ts"

const htmlFiles = Number(process.env.BENCH_REAL_HTML ?? 6_000)
const databases = (process.env.BENCH_REAL_DATABASES ?? "postgres,pglite").split(",") as ReadonlyArray<DatabaseKind>
const project = "bench"
/**
 * Words many manuals and mails hold, searched in turn while the corpus indexes: common words, the costliest to rank.
 * More of them than a run sends searches in ten seconds, so that no search repeats within the answer cache's reach
 * (every index transaction renews the generation its answers are kept under, and a run lasts minutes).
 */
const probeWords = `function return value table server example string list message error option default file name type data
  object class method module system user command line number time text field index query result code page list
  version program package library source build error warning output input format value parameter argument variable
  example section chapter table column row record database schema function trigger view key constraint operator
  expression statement clause select insert update delete create alter drop grant revoke transaction lock session
  connection client server network address port host mail message subject reply sender header body attachment list
  thread post group people money offer free click email business information service account order price product
  report support software computer internet web site link download install configure setting path directory folder
  document window screen mode display image color font size length width height start stop open close read write`
  .split(/\s+/)
  .filter((word, index, all) => word !== "" && all.indexOf(word) === index)

// ---- Ours: a Quarry server indexing its data folder ----

interface Sampled {
  readonly latencies: Array<number>
  failures: number
}

const timed = (into: Sampled, request: () => Promise<Response>) =>
  Effect.promise(async () => {
    const begin = performance.now()
    try {
      const response = await request()
      await response.arrayBuffer()
      if (response.status !== 200) into.failures++
    } catch {
      into.failures++
    }
    into.latencies.push(performance.now() - begin)
  })

const summary = (sampled: Sampled) => {
  const sorted = [...sampled.latencies].sort((a, b) => a - b)
  return {
    samples: sorted.length,
    failures: sampled.failures,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? 0)
  }
}

interface TaskView {
  readonly name: string
  readonly state: string
  readonly error?: string
}

const getJson = <A>(url: string) => Effect.tryPromise(async () => (await (await fetch(url)).json()) as A)

/** Seconds from the submit to the index task DONE, the server's answers meanwhile, and its document count. */
const oursRun = (url: string, root: string, profileDir: string | undefined, probed: boolean) =>
  Effect.gen(function* () {
    const home = yield* isolatedHome
    const server = yield* startQuarry(
      ["serve", "--tcpListenPort", "0", "--dataSourceUrl", url, "--dataDir", root, "--defaultProject", project],
      home,
      {},
      profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]
    )
    const status: Sampled = { latencies: [], failures: 0 }
    const search: Sampled = { latencies: [], failures: 0 }
    let probe = 0
    const started = performance.now()
    const [, indexTask] = yield* Effect.promise(async () => {
      const response = await fetch(`${server.url}/api/task/batchUpdate/index/file`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ options: {} })
      })
      return (await response.json()) as [TaskView, TaskView]
    })
    const statusProbe = timed(status, () => fetch(`${server.url}/api/status`)).pipe(Effect.repeat(Schedule.spaced("20 millis")))
    const searchProbe = timed(search, () =>
      fetch(`${server.url}/api/index/search/${project}/_search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(searchBody(probeWords[probe++ % probeWords.length]!))
      })
    ).pipe(Effect.repeat(Schedule.spaced("100 millis")))
    const statusSampler = yield* Effect.fork(probed ? statusProbe : Effect.void)
    const searchSampler = yield* Effect.fork(probed ? searchProbe : Effect.void)
    // A poll that fails (a kept-alive connection the server closed) is tried again; a server that died is reported.
    const end = yield* getJson<TaskView>(`${server.url}/api/task/${indexTask.name}`).pipe(
      Effect.filterOrFail((task) => task.state !== "RUNNING"),
      Effect.retry({ schedule: Schedule.spaced("200 millis"), while: () => server.output.stderr.length < 100_000 }),
      Effect.timeout("30 minutes"),
      Effect.tapError(() => Effect.sync(() => process.stderr.write(server.output.stderr.slice(-5000))))
    )
    const seconds = (performance.now() - started) / 1_000
    yield* Fiber.interrupt(statusSampler)
    yield* Fiber.interrupt(searchSampler)
    if (end.state !== "DONE") return yield* Effect.dieMessage(`index task ended ${JSON.stringify(end)}`)
    const counted = yield* Effect.promise(async () => {
      const response = await fetch(`${server.url}/api/index/search/${project}/_search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ size: 0, track_total_hits: true, query: { match: { type: "Document" } } })
      })
      return ((await response.json()) as { hits: { total: { value: number } } }).hits.total.value
    })
    // SIGTERM lets the process end normally, which is when the profiler writes its file.
    yield* server.stop("SIGTERM")
    return { seconds, documents: counted, status: summary(status), search: summary(search) }
  }).pipe(Effect.scoped)

// ---- The baseline: the minimal pipeline ----

const pdfjs = getResolvedPDFJS()

/** The text of one file with the libraries Quarry uses for its type, folded for the tsvector. */
const extracted = async (file: CorpusFile) => {
  const bytes = await fs.promises.readFile(file.path)
  let text: string
  switch (file.kind) {
    case "html":
      text = Effect.runSync(htmlToText(bytes.toString("utf8")))
      break
    case "pdf": {
      await pdfjs
      text = (await extractText(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { mergePages: true })).text
      break
    }
    case "email": {
      const email = await PostalMime.parse(bytes)
      text = email.text ?? (email.html === undefined ? "" : Effect.runSync(htmlToText(email.html)))
      break
    }
    case "text":
      text = bytes.toString("utf8")
  }
  const content = text.replace(/\0/g, "")
  return { path: file.path, content, folded: indexedPrefix(content) }
}

/** A COPY text-format field: backslash, tab, newline and carriage return escaped. */
const copyField = (text: string) => text.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r")

/** Files read and extracted this many at a time, ahead of the database. */
const readAhead = 64

async function* extractedBatches(files: ReadonlyArray<CorpusFile>) {
  for (let start = 0; start < files.length; start += readAhead) {
    yield await Promise.all(files.slice(start, start + readAhead).map(extracted))
  }
}

async function* copyRows(files: ReadonlyArray<CorpusFile>) {
  for await (const rows of extractedBatches(files)) {
    yield rows.map((row) => `${copyField(row.path)}\t${copyField(row.content)}\t${copyField(row.folded)}\n`).join("")
  }
}

const minimalTable = `
  DROP TABLE IF EXISTS bench_minimal;
  CREATE TABLE bench_minimal (
    path text PRIMARY KEY,
    content text NOT NULL,
    folded text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', folded)) STORED
  );
  CREATE INDEX bench_minimal_tsv ON bench_minimal USING gin (tsv);`

/** Seconds the minimal pipeline takes over `files` into the database at `url`. */
const baselineRun = async (url: string, kind: DatabaseKind, files: ReadonlyArray<CorpusFile>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(minimalTable)
    const started = performance.now()
    if (kind === "postgres") {
      await pipeline(Readable.from(copyRows(files)), client.query(copyFrom("COPY bench_minimal (path, content, folded) FROM STDIN")))
    } else {
      for await (const rows of extractedBatches(files)) {
        await client.query(
          "INSERT INTO bench_minimal (path, content, folded) SELECT path, content, folded FROM jsonb_to_recordset($1::jsonb) AS r(path text, content text, folded text)",
          [JSON.stringify(rows)]
        )
      }
    }
    const seconds = (performance.now() - started) / 1_000
    const { rows } = await client.query<{ count: number }>("SELECT count(*)::int AS count FROM bench_minimal")
    if (rows[0]?.count !== files.length) throw new Error(`the baseline stored ${rows[0]?.count} rows of ${files.length}`)
    return seconds
  } finally {
    await client.end()
  }
}

/** The embedded database for the baseline: PGlite on its loopback socket, as Quarry runs it. */
const embeddedBaseline = (files: ReadonlyArray<CorpusFile>) =>
  Effect.gen(function* () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-minimal-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    const { config } = Context.get(yield* Layer.build(databaseLayer(`pglite:${dir}`)), PgClient.PgClient)
    return yield* Effect.promise(() => baselineRun(`postgresql://postgres@${config.host}:${config.port}/postgres`, "pglite", files))
  }).pipe(Effect.scoped)

// ---- The profile's split ----

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string }
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Where a sampled function belongs, by the file or package it comes from. */
const categoryOf = ({ functionName, url }: ProfileNode["callFrame"]) => {
  if (functionName === "(garbage collector)") return "gc"
  if (functionName === "(idle)") return "idle"
  if (/chardet|iconv-lite|extract\/text\.ts/.test(url)) return "detect"
  if (/\/eld\/|extract\/Language/.test(url)) return "language"
  if (/html-to-text|htmlparser2|domhandler|domutils|entities|selderee|parseley|unpdf|postal-mime|mammoth|\/src\/extract\//.test(url))
    return "extract"
  if (/\/pg\/|pg-protocol|pg-types|@effect\/sql|postgres-array|PostgresDocumentIndex|TextIndex/.test(url)) return "database"
  if (/node:fs|node:internal\/fs|Source\.ts|ScanJob|Walk/.test(url)) return "read"
  return "other"
}

/** Seconds of the main thread per category, from the profile files Node wrote into `dir` (the largest is it). */
const profileSplit = (dir: string) => {
  const files = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(".cpuprofile"))
    .map((file) => path.join(dir, file))
  const main = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]
  if (main === undefined) return undefined
  const profile = JSON.parse(fs.readFileSync(main, "utf8")) as Profile
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const seconds: Record<string, number> = {}
  // What "other" holds, by package or source file, so that the next fix can be aimed. A Map: function names such as
  // `constructor` would otherwise read Object.prototype's.
  const others = new Map<string, number>()
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)
    const name = frame === undefined ? "other" : categoryOf(frame)
    const delta = (profile.timeDeltas[i] ?? 0) / 1e6
    seconds[name] = (seconds[name] ?? 0) + delta
    if (name === "other") {
      const source = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame?.url ?? "")?.[1] ?? path.basename(frame?.url ?? "") ?? ""
      const key = source === "" ? frame?.functionName || "(anonymous)" : source
      others.set(key, (others.get(key) ?? 0) + delta)
    }
  })
  const topOthers = [...others]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([source, value]) => `${source} ${round(value, 1)}`)
  return {
    ...Object.fromEntries(Object.entries(seconds).map(([name, value]) => [`${name}Seconds`, round(value, 2)])),
    otherTop: topOthers.join(", ")
  }
}

// ---- The run ----

/** An empty database of the kind for one of our runs, removed with the scope. */
const freshDatabase = (kind: DatabaseKind) =>
  Effect.gen(function* () {
    if (kind === "postgres") return (yield* throwawayPostgres).url
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-embedded-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(directory, { recursive: true, force: true })))
    return `pglite:${directory}`
  })

const measure = (kind: DatabaseKind, root: string, files: ReadonlyArray<CorpusFile>) =>
  Effect.gen(function* () {
    // BENCH_PROFILE_DIR keeps the profile there for a closer look; otherwise it is removed after its split is read.
    const keptProfileDir = process.env.BENCH_PROFILE_DIR
    if (keptProfileDir !== undefined) fs.mkdirSync(keptProfileDir, { recursive: true })
    const profileDir = kind !== "postgres" ? undefined : (keptProfileDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-profile-")))
    if (keptProfileDir === undefined)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => profileDir !== undefined && fs.rmSync(profileDir, { recursive: true, force: true }))
      )
    const ours = yield* oursRun(yield* freshDatabase(kind), root, profileDir, true)
    const baselineSeconds =
      kind === "postgres"
        ? yield* Effect.flatMap(throwawayPostgres, ({ url }) => Effect.promise(() => baselineRun(url, "postgres", files)))
        : yield* embeddedBaseline(files)
    const alone = yield* oursRun(yield* freshDatabase(kind), root, undefined, false)
    const split = profileDir === undefined ? undefined : profileSplit(profileDir)
    return { ours, alone, baselineSeconds, split }
  }).pipe(Effect.scoped)

export const run = async () => {
  const { root, files } = realCorpus(htmlFiles)
  const megabytes = files.reduce((sum, file) => sum + file.bytes, 0) / 1024 ** 2
  const byKind = Object.fromEntries(
    ["html", "pdf", "email", "text"].map((kind) => [kind, files.filter((file) => file.kind === kind).length])
  )
  process.stdout.write(`${files.length} real files (${JSON.stringify(byKind)}), ${megabytes.toFixed(1)} MB in ${root}\n`)
  const figures: Record<string, unknown> = {
    files: files.length,
    megabytes: round(megabytes),
    ...Object.fromEntries(Object.entries(byKind).map(([kind, n]) => [`${kind}Files`, n]))
  }
  const ratios: Partial<Record<DatabaseKind, number>> = {}
  for (const kind of databases) {
    if (kind === "postgres" && !postgresAvailable) {
      process.stdout.write("server: skipped, PostgreSQL server not reachable\n")
      continue
    }
    const { ours, alone, baselineSeconds, split } = await Effect.runPromise(measure(kind, root, files))
    const prefix = kind === "postgres" ? "" : "embedded"
    const key = (name: string) => (prefix === "" ? name : `${prefix}${name[0]!.toUpperCase()}${name.slice(1)}`)
    const ratio = round(baselineSeconds / ours.seconds, 3)
    ratios[kind] = ratio
    const aloneRatio = round(baselineSeconds / alone.seconds, 3)
    Object.assign(figures, {
      [key("docsPerSecond")]: Math.round(files.length / ours.seconds),
      [key("megabytesPerSecond")]: round(megabytes / ours.seconds, 2),
      [key("seconds")]: round(ours.seconds),
      [key("documents")]: ours.documents,
      [key("baselineDocsPerSecond")]: Math.round(files.length / baselineSeconds),
      [key("baselineMegabytesPerSecond")]: round(megabytes / baselineSeconds, 2),
      [key("aloneDocsPerSecond")]: Math.round(files.length / alone.seconds),
      [key("aloneRatio")]: aloneRatio,
      [key("statusP50Ms")]: ours.status.p50Ms,
      [key("statusP99Ms")]: ours.status.p99Ms,
      [key("statusMaxMs")]: ours.status.maxMs,
      [key("statusFailures")]: ours.status.failures,
      [key("searchP50Ms")]: ours.search.p50Ms,
      [key("searchP99Ms")]: ours.search.p99Ms,
      [key("searchMaxMs")]: ours.search.maxMs,
      [key("searchFailures")]: ours.search.failures,
      ...(kind === "pglite" ? { embeddedRatio: ratio } : {}),
      ...(split === undefined ? {} : { profile: split })
    })
    process.stdout.write(
      `${kind}: ${Math.round(files.length / ours.seconds)} files/s, ${round(megabytes / ours.seconds, 2)} MB/s (${ours.documents} documents in ${round(ours.seconds)} s); ` +
        `minimal pipeline ${Math.round(files.length / baselineSeconds)} files/s; ratio ${ratio}; ` +
        `alone, without the probes, ${Math.round(files.length / alone.seconds)} files/s, ratio ${aloneRatio}; ` +
        `while indexing /api/status p99 ${ours.status.p99Ms} ms (${ours.status.samples} samples), one-word search p50 ${ours.search.p50Ms} p99 ${ours.search.p99Ms} ms (${ours.search.samples})` +
        (split === undefined ? "" : `; main thread ${JSON.stringify(split)}`) +
        "\n"
    )
  }
  report("index-real", { ...figures, ratio: ratios.postgres ?? ratios.pglite ?? 0 })
}
