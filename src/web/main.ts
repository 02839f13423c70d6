import "./style.css"
import { setAuthorization, whenUnauthorized } from "./api.ts"
import { batchPage } from "./batch.ts"
import { documentPage } from "./document.ts"
import { currentRoute, field, h, nextGeneration } from "./dom.ts"
import type { Page } from "./page.ts"
import { reviewPage } from "./review.ts"
import { searchPage } from "./search.ts"
import { loadSession, rememberProject, type Session, signInForm } from "./session.ts"
import { tasksPage } from "./tasks.ts"

const pages: Readonly<Record<string, Page>> = {
  search: searchPage,
  document: documentPage,
  batch: batchPage,
  tasks: tasksPage,
  review: reviewPage
}

const main = document.getElementById("app") as HTMLElement
const nav = document.getElementById("main-nav") as HTMLElement
const sessionBar = document.getElementById("session") as HTMLElement

let signedIn = false

const render = async (session: Session, moveFocus: boolean) => {
  nextGeneration()
  const route = currentRoute()
  const page = pages[route.name] ?? searchPage
  for (const link of nav.querySelectorAll("a")) {
    const active = link.getAttribute("href") === `#/${route.name === "document" ? "search" : route.name || "search"}`
    if (active) link.setAttribute("aria-current", "page")
    else link.removeAttribute("aria-current")
  }
  // Each render fills its own container: a slow page finishing after a newer one fills a detached one.
  const container = h("div", { class: "page" })
  main.replaceChildren(container)
  const title = await page(container, session, route)
  if (main.firstChild !== container) return
  document.title = `${title} · Quarry`
  if (moveFocus) main.focus()
}

const showSession = (session: Session) => {
  const projects = h(
    "select",
    {
      onchange: (event: Event) => {
        rememberProject(session, (event.target as HTMLSelectElement).value)
        void render(session, false)
      }
    },
    ...session.projects.map((name) => h("option", { value: name, selected: name === session.project }, name))
  )
  const signOut =
    session.mode === "SERVER"
      ? h("a", { href: "/auth/signout", onclick: () => setAuthorization(undefined, false) }, `Sign out ${session.userId}`)
      : h("span", {}, session.userId)
  sessionBar.replaceChildren(field("Project", projects), signOut)
}

const start = async () => {
  signedIn = false
  const session = await loadSession()
  if (session === undefined) {
    nav.hidden = true
    main.replaceChildren(signInForm(() => void start()))
    document.title = "Sign in · Quarry"
    return
  }
  signedIn = true
  nav.hidden = false
  showSession(session)
  window.onhashchange = () => void render(session, true)
  await render(session, false)
}

// A session that ends (expired cookie, revoked key) brings the sign-in form back once.
whenUnauthorized(() => {
  if (signedIn) void start()
})
void start()
