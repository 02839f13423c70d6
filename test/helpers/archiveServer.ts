import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** What the archive server answers on one path. */
export type Served =
  | { readonly _tag: "Bytes"; readonly bytes: Buffer }
  | { readonly _tag: "Status"; readonly status: number }
  /** 302 to another path, as release hosts send downloads to their storage. */
  | { readonly _tag: "Redirect"; readonly location: string }
  /** `size` bytes in chunks, without Content-Length, so only counting can find it too large. */
  | { readonly _tag: "Stream"; readonly size: number }
  /** Headers and a first chunk, then nothing more: a download that never finishes. */
  | { readonly _tag: "Stall" }

export interface ArchiveServer {
  readonly url: string
  readonly serve: (path: string, answer: Served) => void
  /** Paths requested so far, in order. */
  readonly requests: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

/** A release host on a loopback port: each path answers what the test registered for it, else 404. */
export const startArchiveServer = async (): Promise<ArchiveServer> => {
  const answers = new Map<string, Served>()
  const requests: Array<string> = []
  const server = http.createServer((request, response) => {
    const path = request.url ?? "/"
    requests.push(path)
    const answer = answers.get(path) ?? { _tag: "Status", status: 404 }
    switch (answer._tag) {
      case "Bytes":
        response.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": answer.bytes.length })
        response.end(answer.bytes)
        return
      case "Status":
        response.writeHead(answer.status, { "Content-Length": 0 })
        response.end()
        return
      case "Redirect":
        response.writeHead(302, { Location: answer.location, "Content-Length": 0 })
        response.end()
        return
      case "Stream": {
        response.writeHead(200, { "Content-Type": "application/octet-stream" })
        const chunk = Buffer.alloc(16 * 1024, 0x61)
        let sent = 0
        const more = () => {
          while (sent < answer.size) {
            sent += chunk.length
            if (!response.write(chunk)) return void response.once("drain", more)
          }
          response.end()
        }
        response.on("close", () => (sent = answer.size))
        more()
        return
      }
      case "Stall":
        response.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": 1_000 })
        response.write(Buffer.alloc(100))
        return
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    serve: (path, answer) => void answers.set(path, answer),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A loopback port with nothing listening: bound, then released. */
export const closedPort = async (): Promise<number> => {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
