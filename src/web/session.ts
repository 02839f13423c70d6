import { announce, call, getJson, setAuthorization } from "./api.ts"
import { field, h } from "./dom.ts"

export interface Session {
  readonly mode: string
  readonly dataDir: string
  readonly userId: string
  readonly projects: ReadonlyArray<string>
  project: string
}

interface PublicSettings {
  readonly mode?: string
  readonly dataDir?: string
  readonly defaultProject?: string
}

interface Me {
  readonly uid: string
  readonly projects?: ReadonlyArray<{ readonly name: string }>
}

const projectKey = "quarry.project"

/** Who is signed in and in which project; undefined when SERVER mode needs a sign-in first. */
export const loadSession = async (): Promise<Session | undefined> => {
  const settings = (await getJson<PublicSettings>("/settings")) ?? {}
  const me = await getJson<Me>("/api/users/me")
  if (me === undefined || me === null) return undefined
  const projects = me.projects?.map((project) => project.name) ?? []
  const stored = localStorage.getItem(projectKey)
  const fallback =
    settings.defaultProject !== undefined && projects.includes(settings.defaultProject) ? settings.defaultProject : projects[0]
  return {
    mode: settings.mode ?? "LOCAL",
    dataDir: settings.dataDir ?? "/",
    userId: me.uid,
    projects,
    project: stored !== null && projects.includes(stored) ? stored : (fallback ?? settings.defaultProject ?? "local-datashare")
  }
}

export const rememberProject = (session: Session, project: string) => {
  session.project = project
  localStorage.setItem(projectKey, project)
}

/** SERVER mode: a login and password (the sign-in form, which opens a session) or an API key (sent with every call). */
export const signInForm = (onSignedIn: () => void) => {
  const login = h("input", { name: "login", autocomplete: "username", required: true })
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true })
  const apiKey = h("input", { name: "apiKey", type: "password", autocomplete: "off", required: true })
  const withPassword = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "sign-in-password",
      onsubmit: async (event: Event) => {
        event.preventDefault()
        // The form sign-in sets the session cookie (Basic credentials open no session), so the password is not kept.
        const answer = await call("/auth/signin", {
          method: "POST",
          body: new URLSearchParams({ login: login.value, password: password.value })
        })
        if (answer !== undefined) onSignedIn()
        else announce("Wrong login or password.")
      }
    },
    h("h2", { id: "sign-in-password" }, "With a password"),
    field("Login", login),
    field("Password", password),
    h("button", { type: "submit" }, "Sign in")
  )
  const withKey = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "sign-in-key",
      onsubmit: async (event: Event) => {
        event.preventDefault()
        setAuthorization(`Bearer ${apiKey.value.trim()}`, true)
        if ((await call("/api/users/me")) !== undefined) onSignedIn()
        else {
          setAuthorization(undefined, false)
          announce("This API key is not valid.")
        }
      }
    },
    h("h2", { id: "sign-in-key" }, "With an API key"),
    field("API key", apiKey),
    h("button", { type: "submit" }, "Sign in with the key")
  )
  return h("section", { class: "sign-in" }, h("h1", {}, "Sign in to Quarry"), h("div", { class: "columns-2" }, withPassword, withKey))
}
