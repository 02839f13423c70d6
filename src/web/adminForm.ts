import { selectedValues } from "./catalogue.ts"
import { h, uniqueId } from "./dom.ts"

/** The building blocks of the administration forms: a form card and the reading of its fields. */

/** A form in its own card: `submit` answers true when the form may be emptied. */
export const formCard = (
  title: string,
  controls: ReadonlyArray<HTMLElement>,
  button: string,
  submit: (form: HTMLFormElement) => Promise<boolean>
) => {
  const id = uniqueId("admin-form")
  const form = h(
    "form",
    {
      class: "card admin-form",
      "aria-labelledby": id,
      onsubmit: async (event: Event) => {
        event.preventDefault()
        if (await submit(form)) form.reset()
      }
    },
    h("h3", { id }, title),
    h("div", { class: "form-grid" }, ...controls),
    h("p", { class: "actions" }, h("button", { type: "submit" }, button))
  )
  return form
}

export const input = (name: string, attributes: Readonly<Record<string, string | number | boolean>> = {}) =>
  h("input", { name, ...attributes })
export const value = (form: HTMLFormElement, name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim()
export const checked = (form: HTMLFormElement, name: string) => (form.elements.namedItem(name) as HTMLInputElement).checked
export const chosen = (form: HTMLFormElement, name: string) => selectedValues(form.elements.namedItem(name) as HTMLSelectElement)

/** A field with no value is left out, so that the server's default applies. */
export const optionalNumber = (form: HTMLFormElement, name: string) =>
  value(form, name) === "" ? {} : { [name]: Number(value(form, name)) }
