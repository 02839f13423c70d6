import { randomBytes } from "node:crypto"

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

/**
 * A Set-Cookie value: version 1, path /, far-future expiry. The value is raw JSON, not URL-encoded, because
 * clients parse it as it is.
 */
export const sessionCookie = (login: string, roles: ReadonlyArray<string>, sessionId = newSessionId(), maxAge = maxAgeSeconds) => {
  const value: SessionCookieValue = { login, roles, sessionId, redirectAfterLogin: "/" }
  const expires = new Date(Date.now() + maxAge * 1000).toUTCString()
  return `${sessionCookieName}=${JSON.stringify(value)}; Version=1; Path=/; Expires=${expires}; Max-Age=${maxAge}`
}

/** The cookie that ends a session (sign-out). */
export const expiredSessionCookie = () => `${sessionCookieName}=; Version=1; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`

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
