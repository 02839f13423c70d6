/** Calls of Quarry's public APIs from the page; failures are announced in the status region and answer undefined. */

const authorizationKey = "quarry.authorization"
let authorization = sessionStorage.getItem(authorizationKey) ?? undefined
let onUnauthorized: () => void = () => undefined

let clearing: ReturnType<typeof setTimeout> | undefined

/** Says `message` in the live status region, which empties itself after a while so that it hides nothing for long. */
export const announce = (message: string) => {
  const region = document.getElementById("status")
  if (region === null) return
  region.textContent = message
  clearTimeout(clearing)
  clearing = setTimeout(() => (region.textContent = ""), 8000)
}

/** `Bearer <key>` sent with every call. */
export const setAuthorization = (value: string | undefined, remember: boolean) => {
  authorization = value
  if (value !== undefined && remember) sessionStorage.setItem(authorizationKey, value)
  else sessionStorage.removeItem(authorizationKey)
}

export const whenUnauthorized = (handler: () => void) => {
  onUnauthorized = handler
}

/** `{error}` of the legacy API, the first `detail` of a JSON:API errors document, or the start of the body. */
const errorMessage = async (response: Response) => {
  const body = await response.text()
  const parsed = ((): { error?: unknown; errors?: ReadonlyArray<{ detail?: string }> } => {
    try {
      return JSON.parse(body) as { error?: unknown; errors?: ReadonlyArray<{ detail?: string }> }
    } catch {
      return {}
    }
  })()
  return typeof parsed.error === "string" ? parsed.error : (parsed.errors?.[0]?.detail ?? body.slice(0, 200))
}

/** `report` says a failure: the status region by default; an upload form says it next to its file instead. */
export const call = async (
  path: string,
  init: RequestInit = {},
  report: (message: string) => void = announce
): Promise<Response | undefined> => {
  const headers = new Headers(init.headers)
  // Tells the server that this page handles a 401 itself: no browser Basic prompt.
  headers.set("x-requested-with", "XMLHttpRequest")
  if (authorization !== undefined) headers.set("authorization", authorization)
  const response = await fetch(path, { ...init, headers, credentials: "same-origin" }).catch(() => undefined)
  if (response === undefined) {
    report(`The server cannot be reached (${path}).`)
    return undefined
  }
  // A 401 brings the sign-in form back, which says what to do better than the error would.
  if (response.status === 401) {
    onUnauthorized()
    return undefined
  }
  if (!response.ok) {
    report(`${init.method ?? "GET"} ${path} failed (${response.status}): ${await errorMessage(response)}`)
    return undefined
  }
  return response
}

const parsed = async <T>(response: Response | undefined): Promise<T | undefined> => {
  if (response === undefined) return undefined
  const body = await response.text()
  return (body === "" ? null : JSON.parse(body)) as T
}

export const getJson = async <T>(path: string) => parsed<T>(await call(path))

export const sendJson = async <T>(method: string, path: string, body: unknown, contentType = "application/json") =>
  parsed<T>(await call(path, { method, headers: { "content-type": contentType }, body: JSON.stringify(body) }))

/** The search proxy with an Elasticsearch request body. */
export const searchIndex = <T>(project: string, endpoint: string, body: unknown) =>
  sendJson<T>("POST", `/api/index/search/${encodeURIComponent(project)}/${endpoint}`, body)

export const pathOf = (absolute: string) => absolute.split("/").map(encodeURIComponent).join("/")

/**
 * A download link. Signed in with an API key, a plain link would carry no credentials (the key is a header, not a
 * cookie), so the file is then fetched with the key and saved from memory.
 */
export const downloadLink = (href: string, filename: string, label: string) => {
  const link = document.createElement("a")
  link.className = "button"
  link.href = href
  link.download = filename
  link.textContent = label
  link.addEventListener("click", async (event) => {
    if (authorization === undefined) return
    event.preventDefault()
    const response = await call(href)
    if (response === undefined) return
    const saved = document.createElement("a")
    saved.href = URL.createObjectURL(await response.blob())
    saved.download = filename
    saved.click()
    URL.revokeObjectURL(saved.href)
  })
  return link
}
