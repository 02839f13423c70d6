/** A tiny element builder: the page needs no framework, only labelled, keyboard-reachable markup. */
export type Child = Node | string | number | null | undefined | false
type AttributeValue = string | number | boolean | null | undefined
type Handler = (event: Event) => void
export type Attributes = Readonly<Record<string, AttributeValue | Handler>>

export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: ReadonlyArray<Child>) => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (value === true) element.setAttribute(name, "")
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value))
  }
  append(element, children)
  return element
}

export const append = (parent: Element, children: ReadonlyArray<Child>) => {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.append(child instanceof Node ? child : String(child))
  }
}

/** A highlight fragment of the search backend (`<mark>` around matches) as nodes: nothing else is read as markup. */
export const marked = (fragment: string): ReadonlyArray<Node> =>
  fragment.split(/(<mark>.*?<\/mark>)/s).map((part) => {
    const match = /^<mark>(.*)<\/mark>$/s.exec(part)
    return match === null ? document.createTextNode(part) : h("mark", {}, match[1])
  })

let ids = 0
/** A unique id, for labels and aria references. */
export const uniqueId = (prefix: string) => `${prefix}-${++ids}`

/** A labelled form field: the label, then the control, in one block. */
export const field = (label: string, control: HTMLElement, hint?: string) => {
  const id = control.id === "" ? uniqueId("field") : control.id
  control.id = id
  const hintNode = hint === undefined ? null : h("small", { id: `${id}-hint`, class: "hint" }, hint)
  if (hintNode !== null) control.setAttribute("aria-describedby", hintNode.id)
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hintNode)
}

export const basename = (path: string) =>
  path
    .split(/[\\/]/)
    .filter((part) => part !== "")
    .pop() ?? path

export const formatBytes = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`

/** Reads the hash route: `#/name/part/part?key=value`. */
export const currentRoute = () => {
  const [route = "", query = ""] = location.hash.replace(/^#\/?/, "").split("?")
  const [name = "", ...parts] = route.split("/").map(decodeURIComponent)
  return { name, parts, query: new URLSearchParams(query) }
}

export const routeHref = (parts: ReadonlyArray<string>, query?: URLSearchParams) => {
  const search = query === undefined || query.toString() === "" ? "" : `?${query.toString()}`
  return `#/${parts.map(encodeURIComponent).join("/")}${search}`
}

/** Pages poll while work runs; showing another page stops the previous page's polling. */
let generation = 0
export const nextGeneration = () => ++generation

/** Runs `step` now and then every `milliseconds` while it answers true and its page is still shown. */
export const repeatWhile = (step: () => Promise<boolean>, milliseconds: number) => {
  const mine = generation
  const tick = async () => {
    if (mine !== generation) return
    if ((await step()) && mine === generation) setTimeout(() => void tick(), milliseconds)
  }
  void tick()
}

/** Runs `action` after `milliseconds` unless another page is shown by then. */
export const later = (action: () => void, milliseconds: number) => {
  const mine = generation
  setTimeout(() => mine === generation && action(), milliseconds)
}
