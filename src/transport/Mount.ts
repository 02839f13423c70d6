import type * as http from "node:http"
import type { Duplex } from "node:stream"

/**
 * A transport served beside the HTTP routes under a path prefix (the RPC endpoint): the HTTP server hands it the raw
 * Node request of every path under the prefix.
 */
export interface Mount {
  readonly prefix: string
  readonly handle: (request: http.IncomingMessage, response: http.ServerResponse) => void
  /** Takes over the connection of an upgrade request (a WebSocket) under the prefix. */
  readonly upgrade?: (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void
}
