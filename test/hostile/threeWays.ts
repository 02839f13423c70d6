import { Effect } from "effect"
import type { Credentials } from "../../src/rpc/client.ts"
import { bodyJson, request } from "../helpers/server.ts"
import { addUser, basic, cookiePair } from "../helpers/users.ts"

/** One way of authenticating a request: its name (for test messages) and the headers that carry it. */
export interface Credential {
  readonly name: string
  readonly headers: Readonly<Record<string, string>>
  /** The same credentials for the RPC client. */
  readonly rpc: Credentials
}

/**
 * Creates a user and answers the three ways it can authenticate in SERVER mode: HTTP Basic, an API key, and the
 * session cookie of a form sign-in.
 */
export const threeWays = (
  login: string,
  password: string,
  options: { readonly projects?: ReadonlyArray<string>; readonly admin?: boolean } = {}
) =>
  Effect.gen(function* () {
    yield* addUser(login, password, options)
    const authorization = basic(login, password)
    const key = yield* request(`/api/key/${login}`, { method: "PUT", headers: { authorization } })
    const { apiKey } = (yield* bodyJson(key)) as { apiKey: string }
    const form = new URLSearchParams({ login, password }).toString()
    const signIn = yield* request("/auth/signin", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      redirect: "manual"
    })
    const cookie = cookiePair(signIn.headers.get("set-cookie"))
    if (apiKey === undefined || cookie === "") return yield* Effect.dieMessage(`${login} could not get an API key and a session cookie`)
    return [
      { name: "Basic", headers: { authorization }, rpc: { _tag: "Basic", user: login, password } },
      { name: "API key", headers: { authorization: `Bearer ${apiKey}` }, rpc: { _tag: "ApiKey", key: apiKey } },
      { name: "cookie", headers: { cookie }, rpc: { _tag: "Session", cookie } }
    ] satisfies ReadonlyArray<Credential>
  })
