import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

export interface LoadFigures {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  readonly errors: number
}

const loadScript = fileURLToPath(new URL("./_load.ts", import.meta.url))

/** Runs the load generator against a URL in a child process and returns its figures. */
export const measureLoad = (url: string, seconds: number, connections: number, cookie?: string) =>
  new Promise<LoadFigures>((resolve, reject) => {
    const args = ["--import", "tsx", loadScript, url, String(seconds), String(connections), ...(cookie === undefined ? [] : [cookie])]
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error !== null) reject(error)
      else resolve(JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as LoadFigures)
    })
  })
