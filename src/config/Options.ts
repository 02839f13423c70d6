import * as os from "node:os"
import * as path from "node:path"

/**
 * Every option Quarry understands, with the reference's names and defaults so that its users' command lines,
 * settings files and DS_DOCKER_ variables carry over. Values stay strings, as the reference's settings do;
 * typed views are built in Settings.ts after validation.
 */
export interface OptionSpec {
  readonly name: string
  readonly description: string
  /** Absent: the option has no value unless given. */
  readonly defaultValue?: string
  /** Returns a reason when the value is not acceptable. */
  readonly check?: (value: string) => string | undefined
  /** A filesystem path: `~` is expanded and relative paths resolved against the working directory. */
  readonly isPath?: boolean
}

const oneOf =
  (...allowed: ReadonlyArray<string>) =>
  (value: string) =>
    allowed.includes(value) ? undefined : `must be one of ${allowed.join(", ")}`

const integerIn = (min: number, max: number) => (value: string) => {
  if (!/^\d+$/.test(value)) return `must be an integer between ${min} and ${max}`
  const n = Number(value)
  return n >= min && n <= max ? undefined : `must be an integer between ${min} and ${max}`
}

const booleanText = oneOf("true", "false")

const dataSource = (value: string) =>
  /^postgres(ql)?:\/\//.test(value) || /^pglite:.+/.test(value) ? undefined : "must be postgresql://… or pglite:<dir> or pglite:memory"

const httpUrl = (value: string) => (/^https?:\/\/[^/]/.test(value) ? undefined : "must be an http:// or https:// URL")

const nonEmpty = (value: string) => (value.trim() === "" ? "must not be empty" : undefined)

const absoluteUrlPath = (value: string) => (value.startsWith("/") ? undefined : "must start with /")

/** `kind=n` pairs separated by commas, e.g. `index=1,batchSearch=2`. */
export const parseKindConcurrency = (value: string): Record<string, number> =>
  Object.fromEntries(
    value
      .split(",")
      .map((pair) => pair.trim())
      .filter((pair) => pair !== "")
      .map((pair) => {
        const [kind = "", count = ""] = pair.split("=")
        return [kind.trim(), Number(count)]
      })
  )

const kindConcurrencyText = (value: string) =>
  value.split(",").every((pair) => pair.trim() === "" || /^\s*[A-Za-z][\w-]*\s*=\s*[1-9]\d{0,3}\s*$/.test(pair))
    ? undefined
    : "must be kind=count pairs separated by commas, e.g. index=1,batchSearch=2"

const sizeText = (value: string) => (/^\d+[KMG]?$/.test(value) ? undefined : "must look like 100M (digits then K, M or G)")

/** Bytes of a checked size text: `100M` is 100 × 1024². */
export const parseSize = (value: string): number => {
  const unit = value.at(-1) ?? ""
  const factor = unit === "K" ? 1024 : unit === "M" ? 1024 ** 2 : unit === "G" ? 1024 ** 3 : 1
  return Number(factor === 1 ? value : value.slice(0, -1)) * factor
}

/** `no-cors`, `*`, or origins (`scheme://host[:port]`) separated by commas. */
const corsText = (value: string) =>
  value === "no-cors" ||
  value === "*" ||
  value.split(",").every((origin) => URL.canParse(origin.trim()) && new URL(origin.trim()).origin === origin.trim())
    ? undefined
    : "must be no-cors, * or origins such as http://localhost:9090 separated by commas"

const home = os.homedir()
const defaultParallelism = String(Math.max(2, os.cpus().length))

export const optionSpecs: ReadonlyArray<OptionSpec> = [
  {
    name: "mode",
    defaultValue: "LOCAL",
    description: "LOCAL (one local user) or SERVER (authenticated users)",
    check: oneOf("LOCAL", "SERVER")
  },
  { name: "tcpListenPort", defaultValue: "8080", description: "HTTP port (0 picks a free one)", check: integerIn(0, 65535) },
  { name: "bind", defaultValue: "127.0.0.1", description: "address the HTTP server listens on", check: nonEmpty },
  {
    name: "dataDir",
    defaultValue: path.join(home, "Datashare"),
    description: "root folder of the documents to index and browse",
    isPath: true
  },
  {
    name: "dataSourceUrl",
    defaultValue: `pglite:${path.join(home, ".local", "share", "quarry", "db")}`,
    description: "postgresql://… for a PostgreSQL server, pglite:<dir> for the embedded database, pglite:memory for a throwaway one",
    check: dataSource
  },
  { name: "elasticsearchAddress", description: "Elasticsearch URL; unset means PostgreSQL full-text search", check: httpUrl },
  {
    name: "defaultProject",
    defaultValue: "local-datashare",
    description: "project used by indexing and named-entity tasks",
    check: nonEmpty
  },
  { name: "defaultUserName", defaultValue: "local", description: "the user of LOCAL mode", check: nonEmpty },
  { name: "settings", description: "settings file (Java properties: key=value lines, # comments); -s for short", isPath: true },
  {
    name: "cors",
    defaultValue: "no-cors",
    description: "no-cors (no CORS header), * (any page may read answers), or origins separated by commas that may also send writes",
    check: corsText
  },
  {
    name: "allowedHosts",
    description: "host names besides localhost, IP addresses and bind that requests may name in Host, separated by commas; * for any"
  },
  {
    name: "authFailureWindowSeconds",
    defaultValue: "60",
    description: "window in which failed password sign-ins are counted per login and address",
    check: integerIn(1, 86_400)
  },
  { name: "pluginsDir", description: "folder of installed front-end plugins", isPath: true },
  { name: "extensionsDir", description: "folder of installed server extensions", isPath: true },
  {
    name: "webRoot",
    description: "folder of a built front end (the Datashare client, Prophecies) served at / instead of Quarry's page",
    isPath: true
  },
  {
    name: "deliverablesRegistry",
    description: "JSON file listing the installable plugins and extensions, instead of the shipped one",
    isPath: true
  },
  {
    name: "deliverableMaxSize",
    defaultValue: "500M",
    description: "largest plugin or extension download, and largest unpacked plugin",
    check: sizeText
  },
  {
    name: "deliverableDownloadTimeout",
    defaultValue: "600",
    description: "seconds a plugin or extension download may take",
    check: integerIn(1, 86_400)
  },
  {
    name: "batchDownloadDir",
    defaultValue: path.join(home, ".local", "share", "quarry", "downloads"),
    description: "folder of batch download archives",
    isPath: true
  },
  {
    name: "batchDownloadMaxNbFiles",
    defaultValue: "10000",
    description: "most files in one batch download",
    check: integerIn(1, 10_000_000)
  },
  { name: "batchDownloadMaxSize", defaultValue: "100M", description: "largest batch download archive", check: sizeText },
  {
    name: "batchDownloadTimeToLive",
    defaultValue: "24",
    description: "hours a batch download archive is kept",
    check: integerIn(1, 1_000_000)
  },
  {
    name: "batchDownloadEncrypt",
    defaultValue: "false",
    description: "encrypt batch download archives (AES) with a password per archive",
    check: booleanText
  },
  {
    name: "parallelism",
    defaultValue: defaultParallelism,
    description: "tasks run at once, and the steps an index task runs at once (each worker extracts while the database writes)",
    check: integerIn(1, 1024)
  },
  {
    name: "taskConcurrency",
    description: "tasks of one kind run at once, overriding parallelism (e.g. index=1,batchSearch=2)",
    check: kindConcurrencyText
  },
  { name: "parserParallelism", defaultValue: "1", description: "text extraction workers per index task", check: integerIn(1, 1024) },
  { name: "nlpParallelism", defaultValue: "1", description: "named-entity workers per task", check: integerIn(1, 1024) },
  {
    name: "sessionTtlSeconds",
    defaultValue: "43200",
    description: "lifetime of a SERVER-mode session",
    check: integerIn(1, 2_147_483_647)
  },
  {
    name: "protectedUriPrefix",
    defaultValue: "/api/",
    description: "paths that need authentication in SERVER mode",
    check: absoluteUrlPath
  },
  { name: "queueName", defaultValue: "extract:queue", description: "name of the document queue" },
  { name: "scrollSize", defaultValue: "1000", description: "documents per scroll page", check: integerIn(1, 100_000) },
  { name: "scrollSlices", defaultValue: "1", description: "parallel scroll slices", check: integerIn(1, 1024) },
  { name: "ocr", defaultValue: "true", description: "run OCR on images when an engine is installed", check: booleanText },
  { name: "rootHost", description: "public base URL used in document links of CSV exports" },
  { name: "platform", description: "adds an environment label to the OpenMetrics status" },
  { name: "clusterName", defaultValue: "datashare", description: "Elasticsearch cluster name" },
  { name: "browserOpenLink", defaultValue: "false", description: "open a browser on start (LOCAL)", check: booleanText }
]

const specsByName: ReadonlyMap<string, OptionSpec> = new Map(optionSpecs.map((spec) => [spec.name, spec]))

export const isKnownOption = (name: string) => specsByName.has(name)

export const isPathOption = (name: string) => specsByName.get(name)?.isPath === true

/** Why `value` is not acceptable for the option `name`, or undefined; settings Quarry does not know are kept as they are. */
export const checkOption = (name: string, value: string): string | undefined => {
  const reason = specsByName.get(name)?.check?.(value)
  return reason === undefined ? undefined : `${JSON.stringify(value)} ${reason}`
}

export const defaultValues: Readonly<Record<string, string>> = Object.fromEntries(
  optionSpecs.flatMap((o) => (o.defaultValue === undefined ? [] : [[o.name, o.defaultValue]]))
)
