import { randomBytes } from "node:crypto"
import type { IncomingMessage } from "node:http"
import type { TLSSocket } from "node:tls"

/** The session cookie of the reference; front ends read `login` from it with a bare JSON.parse. */
export const sessionCookieName = "_ds_session_id"

export interface SessionCookieValue {
  readonly login: string
  readonly roles: ReadonlyArray<string>
  readonly sessionId: string
  readonly redirectAfterLogin: string
}

const maxAgeSeconds = 2_147_483_647

export const newSessionId = () => randomBytes(16).toString("hex")

/** Whether a request came over HTTPS: on a TLS socket here, or through a proxy that says so. */
export const cameOverHttps = (request: IncomingMessage) =>
  (request.socket as Partial<TLSSocket>).encrypted === true ||
  request.headers["x-forwarded-proto"]?.toString().split(",")[0]?.trim() === "https"

export interface SessionCookieOptions {
  readonly sessionId?: string
  readonly maxAge?: number
  /** Sent only over HTTPS, for a request that came over HTTPS. */
  readonly secure: boolean
}

/**
 * Scripts never read the cookie (HttpOnly: a script injected into a page of this origin cannot take the session) and
 * other sites' requests do not carry it, except top-level navigations (SameSite=Lax), which keep links into Quarry working.
 */
const attributes = (secure: boolean) => `Version=1; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`

/** A Set-Cookie value: far-future expiry by default. The value is raw JSON, not URL-encoded, as the reference writes it. */
export const sessionCookie = (login: string, roles: ReadonlyArray<string>, options: SessionCookieOptions) => {
  const maxAge = options.maxAge ?? maxAgeSeconds
  const value: SessionCookieValue = { login, roles, sessionId: options.sessionId ?? newSessionId(), redirectAfterLogin: "/" }
  const expires = new Date(Date.now() + maxAge * 1000).toUTCString()
  return `${sessionCookieName}=${JSON.stringify(value)}; ${attributes(options.secure)}; Expires=${expires}; Max-Age=${maxAge}`
}

/** The cookie that ends a session (sign-out). */
export const expiredSessionCookie = (secure: boolean) =>
  `${sessionCookieName}=; ${attributes(secure)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`

/** The session cookie of a request, when present and well formed. */
export const readSessionCookie = (cookieHeader: string | undefined): SessionCookieValue | undefined => {
  if (cookieHeader === undefined) return undefined
  for (const part of cookieHeader.split(/;\s*/)) {
    if (!part.startsWith(`${sessionCookieName}=`)) continue
    const raw = part.slice(sessionCookieName.length + 1)
    for (const candidate of [raw, safeDecode(raw)]) {
      try {
        const value: unknown = JSON.parse(candidate)
        if (isSessionValue(value)) return value
      } catch {
        continue
      }
    }
  }
  return undefined
}

const safeDecode = (raw: string) => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

const isSessionValue = (value: unknown): value is SessionCookieValue =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Record<string, unknown>).login === "string" &&
  typeof (value as Record<string, unknown>).sessionId === "string"
