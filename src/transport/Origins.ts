import { isIP } from "node:net"

/**
 * Which hosts and origins a request may name, read by every transport that browsers reach (the HTTP routes, RPC over
 * HTTP and its WebSocket): pages of other sites must not drive Quarry through the user's browser.
 */

/** The settings the guard reads. */
export interface GuardSettings {
  readonly cors: string
  readonly bind: string
  readonly allowedHosts: ReadonlyArray<string>
}

/** Methods that change something: a page of another site may send these only from an origin `cors` names. */
export const changesState = (method: string) => method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE"

/** Origins named by the `cors` setting; `*` names none, it only lets any page read answers. */
const namedOrigins = (cors: string) => (cors === "no-cors" || cors === "*" ? [] : cors.split(",").map((origin) => origin.trim()))

/** The host name of a Host header, lowercase, without its port; an IPv6 address keeps its brackets. */
const hostName = (host: string) => {
  const lower = host.toLowerCase()
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1)
  const colon = lower.indexOf(":")
  return colon < 0 ? lower : lower.slice(0, colon)
}

/**
 * Whether Host names this server: localhost, an IP address (a rebinding page always names its own domain), the `bind`
 * address, or a name of `allowedHosts` (`*` lets any through). Requests without Host (HTTP/1.0) come from no browser.
 */
export const hostAllowed = (host: string | undefined, settings: GuardSettings) => {
  if (host === undefined) return true
  const name = hostName(host)
  const bare = name.startsWith("[") ? name.slice(1, -1) : name
  return (
    name === "localhost" ||
    isIP(bare) !== 0 ||
    name === settings.bind.toLowerCase() ||
    settings.allowedHosts.includes(name) ||
    settings.allowedHosts.includes("*")
  )
}

/** Whether the request's Origin, when present, is this server (same host as Host) or one the `cors` setting names. */
export const originAllowed = (origin: string | undefined, host: string | undefined, cors: string) => {
  if (origin === undefined) return true
  if (namedOrigins(cors).includes(origin)) return true
  return host !== undefined && URL.canParse(origin) && new URL(origin).host === host.toLowerCase()
}

/** The Access-Control-Allow-Origin value of an answer: `*`, the request's origin when `cors` names it, else none. */
export const allowOriginFor = (cors: string, origin: string | undefined) => {
  if (cors === "*") return "*"
  return origin !== undefined && namedOrigins(cors).includes(origin) ? origin : undefined
}
